// Simperium's string deltas, the `v` of a jsondiff `{"o":"d"}`: tab-separated tokens, `=N`
// keeps N UTF-16 code units, `-N` deletes N, `+text` inserts text escaped like `encodeURI`
// with spaces left as spaces. Made and read exactly as LockstepCore's TextDelta does.
import { validOrReplacement, utf16Count } from "./scalars.js";

/** @typedef {import("./edits.js").Edit} Edit */

/** Why a delta could not be read against a text: what was wrong, in words. */
export class TextDeltaError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "TextDeltaError";
  }
}

// `A-Z a-z 0-9 ; , / ? : @ & = + $ - _ . ! ~ * ' ( ) #` and space pass unescaped.
const unescaped = new Uint8Array(128);
for (const character of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789;,/?:@&=+$-_.!~*'()# ") {
  unescaped[character.charCodeAt(0)] = 1;
}
const hexDigits = "0123456789ABCDEF";

/**
 * The escaped form of inserted text: UTF-8 bytes outside the unescaped set as `%XX`.
 * @param {readonly number[]} scalars @param {number} [start] @param {number} [end]
 */
export function escapeScalars(scalars, start = 0, end = scalars.length) {
  let out = "";
  for (let index = start; index < end; index++) {
    const value = scalars[index];
    if (value < 0x80 && unescaped[value]) {
      out += String.fromCharCode(value);
      continue;
    }
    for (const byte of utf8Bytes(validOrReplacement(value))) out += "%" + hexDigits[byte >> 4] + hexDigits[byte & 0xf];
  }
  return out;
}

/** @param {number} value */
function utf8Bytes(value) {
  if (value < 0x80) return [value];
  if (value < 0x800) return [0xc0 | (value >> 6), 0x80 | (value & 0x3f)];
  if (value < 0x10000) return [0xe0 | (value >> 12), 0x80 | ((value >> 6) & 0x3f), 0x80 | (value & 0x3f)];
  return [0xf0 | (value >> 18), 0x80 | ((value >> 12) & 0x3f), 0x80 | ((value >> 6) & 0x3f), 0x80 | (value & 0x3f)];
}

/**
 * The edits in delta form (counts in UTF-16 code units).
 * @param {readonly Edit[]} edits
 */
export function deltaOf(edits) {
  /** @type {string[]} */
  const tokens = [];
  for (const edit of edits) {
    if (edit.op === "=") tokens.push("=" + utf16Count(edit.s));
    else if (edit.op === "-") tokens.push("-" + utf16Count(edit.s));
    else tokens.push("+" + escapeScalars(edit.s));
  }
  return tokens.join("\t");
}

/** @typedef {{ kind: "=" | "-", count: number } | { kind: "+", text: string }} DeltaToken */

const encoder = new TextEncoder();
const strictUTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The tokens of a delta; empty tokens are skipped, as diff-match-patch does.
 * @param {string} delta
 * @returns {DeltaToken[]}
 */
function parseDelta(delta) {
  /** @type {DeltaToken[]} */
  const tokens = [];
  for (const token of delta.split("\t")) {
    if (token === "") continue;
    const body = token.slice(1);
    switch (token[0]) {
      case "+": {
        const bytes = unescape(body);
        if (!bytes) throw new TextDeltaError(`invalid escape in delta token ${excerpt(token)}: expected % and two hex digits`);
        let text;
        try {
          text = strictUTF8.decode(bytes);
        } catch {
          throw new TextDeltaError(`delta token ${excerpt(token)} decodes to invalid UTF-8`);
        }
        tokens.push({ kind: "+", text });
        break;
      }
      case "=":
      case "-": {
        // ASCII digits only, unlike parseInt, which reads "5abc" as 5.
        if (!/^[0-9]+$/.test(body)) {
          throw new TextDeltaError(`invalid count in delta token ${excerpt(token)}: expected a non-negative integer`);
        }
        tokens.push({ kind: token[0] === "=" ? "=" : "-", count: Number(body) });
        break;
      }
      default:
        throw new TextDeltaError(`invalid delta operation in token ${excerpt(token)}: expected =, - or +`);
    }
  }
  return tokens;
}

/** Decodes every `%XX` to its byte; other characters pass as their UTF-8. `null` for a bad `%`.
 * @param {string} escaped */
function unescape(escaped) {
  const bytes = encoder.encode(escaped);
  const out = new Uint8Array(bytes.length);
  let length = 0;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index];
    if (byte !== 0x25) {
      out[length++] = byte;
      continue;
    }
    const high = hexValue(bytes[index + 1]);
    const low = hexValue(bytes[index + 2]);
    if (high < 0 || low < 0) return null;
    out[length++] = (high << 4) | low;
    index += 2;
  }
  return out.subarray(0, length);
}

/** @param {number | undefined} digit */
function hexValue(digit) {
  if (digit === undefined) return -1;
  if (digit >= 0x30 && digit <= 0x39) return digit - 0x30;
  if (digit >= 0x41 && digit <= 0x46) return digit - 0x41 + 10;
  if (digit >= 0x61 && digit <= 0x66) return digit - 0x61 + 10;
  return -1;
}

/**
 * The start of a token, short enough for an error message.
 * @param {string} token
 */
function excerpt(token) {
  return JSON.stringify(token.length > 40 ? token.slice(0, 40) + "…" : token);
}

/** @param {DeltaToken[]} tokens */
function sourceLength(tokens) {
  let total = 0;
  for (const token of tokens) if (token.kind !== "+") total += token.count;
  return total;
}

/**
 * Applies a delta to the text it was made from, exactly (UTF-16 code units).
 * @param {string} delta @param {string} text
 * @returns {string}
 * @throws {TextDeltaError} when the delta is malformed or was made from a text of another length
 */
export function applyDelta(delta, text) {
  const tokens = parseDelta(delta);
  const expected = sourceLength(tokens);
  if (expected !== text.length) {
    throw new TextDeltaError(`delta length ${expected} does not equal source text length ${text.length}`);
  }
  /** @type {string[]} */
  const pieces = [];
  let position = 0;
  for (const token of tokens) {
    if (token.kind === "+") {
      pieces.push(token.text);
      continue;
    }
    const end = position + token.count;
    if (splitsPair(text, end)) throw new TextDeltaError(`delta splits a surrogate pair of the source text at UTF-16 offset ${end}`);
    if (token.kind === "=") pieces.push(text.slice(position, end));
    position = end;
  }
  return pieces.join("");
}

/** Whether a cut at `offset` falls between the halves of a surrogate pair.
 * @param {string} text @param {number} offset */
function splitsPair(text, offset) {
  if (offset <= 0 || offset >= text.length) return false;
  const before = text.charCodeAt(offset - 1);
  const after = text.charCodeAt(offset);
  return before >= 0xd800 && before < 0xdc00 && after >= 0xdc00 && after < 0xe000;
}

/**
 * Reads a delta against the scalars of the text it was made from (diff-match-patch's
 * `diff_fromDelta`), as edits.
 * @param {string} delta @param {readonly number[]} source
 * @returns {Edit[]}
 */
export function editsFromDelta(delta, source) {
  const tokens = parseDelta(delta);
  const length = utf16Count(source);
  const expected = sourceLength(tokens);
  if (expected !== length) throw new TextDeltaError(`delta length ${expected} does not equal source text length ${length}`);
  /** @type {Edit[]} */
  const edits = [];
  let index = 0;
  let offset = 0;
  for (const token of tokens) {
    if (token.kind === "+") {
      if (token.text !== "") edits.push({ op: "+", s: Array.from(token.text, (c) => /** @type {number} */ (c.codePointAt(0))) });
      continue;
    }
    const start = index;
    let consumed = 0;
    while (consumed < token.count) {
      consumed += source[index] > 0xffff ? 2 : 1;
      index++;
    }
    if (consumed !== token.count) {
      throw new TextDeltaError(`delta splits a surrogate pair of the source text at UTF-16 offset ${offset + token.count}`);
    }
    offset += token.count;
    if (token.count > 0) edits.push({ op: token.kind === "=" ? "=" : "-", s: source.slice(start, index) });
  }
  return edits;
}
