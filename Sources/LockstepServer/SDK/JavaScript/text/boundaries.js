// Slides lone changes to where their ends fall best for a reader: diff-match-patch's
// `cleanupSemanticLossless`, as LockstepCore's `alignToWordBoundaries` does it.
import { commonSuffixLength, hasSuffix } from "./search.js";

/** @typedef {import("./edits.js").Edit} Edit */

/**
 * Slides each change alone between two equalities sideways to the place where its ends fall
 * best: `The c<ins>at c</ins>ame` → `The <ins>cat </ins>came`. Best first: the edge of the
 * text, blank lines, line breaks, the end of a sentence, whitespace, punctuation; inside a word
 * is poor, inside a user-perceived character worst.
 * @param {readonly Edit[]} input
 * @returns {Edit[]}
 */
export function alignToWordBoundaries(input) {
  const edits = input.slice();
  /** @type {Edit[]} */
  const aligned = [];
  let index = 0;
  while (index < edits.length) {
    const change = edits[index];
    const before = aligned[aligned.length - 1];
    if (change.op === "=" || index + 1 >= edits.length || edits[index + 1].op !== "=" || !before || before.op !== "=") {
      aligned.push(change);
      index += 1;
      continue;
    }
    // All three runs as one text; sliding the change moves a window of fixed length.
    const joined = before.s.concat(change.s, edits[index + 1].s);
    const length = change.s.length;
    // First slide as far left as the texts allow...
    let start = before.s.length - commonSuffixLength(before.s, change.s);
    let bestStart = start;
    let bestScore = windowScore(joined, start, length);
    // ...then step right one scalar at a time while the change still fits.
    while (start + length < joined.length && joined[start] === joined[start + length]) {
      start += 1;
      const score = windowScore(joined, start, length);
      // On a tie, prefer the later place: edits that end with whitespace read better.
      if (score >= bestScore) {
        bestScore = score;
        bestStart = start;
      }
    }
    aligned.pop();
    if (bestStart > 0) aligned.push({ op: "=", s: joined.slice(0, bestStart) });
    aligned.push({ op: change.op, s: joined.slice(bestStart, bestStart + length) });
    if (bestStart + length < joined.length) {
      edits[index + 1] = { op: "=", s: joined.slice(bestStart + length) };
      index += 1;
    } else {
      // The equality after the change is gone.
      index += 2;
    }
  }
  return aligned;
}

/** The score of a change at `start..<start + length` of `text`: its two ends' scores.
 * @param {number[]} text @param {number} start @param {number} length */
function windowScore(text, start, length) {
  const end = start + length;
  return boundaryScore(text, 0, start, text, start, end) + boundaryScore(text, start, end, text, end, text.length);
}

const newlineNewline = [0x0a, 0x0a];
const newlineReturnNewline = [0x0a, 0x0d, 0x0a];

/**
 * How good the boundary between `a[aStart..<aEnd]` and `b[bStart..<bEnd]` is for a change to
 * start or end: 6 (the edge of the text) down to 0 (inside a word) and −1 (inside a character).
 * @param {number[]} a @param {number} aStart @param {number} aEnd
 * @param {number[]} b @param {number} bStart @param {number} bEnd
 */
function boundaryScore(a, aStart, aEnd, b, bStart, bEnd) {
  if (aEnd <= aStart || bEnd <= bStart) return 6;
  const last = a[aEnd - 1];
  const first = b[bStart];
  const lastKind = kindOf(last);
  const firstKind = kindOf(first);
  const before = a.slice(aStart, aEnd);
  const endsWithBlankLine = hasSuffix(before, newlineNewline) || hasSuffix(before, newlineReturnNewline);
  if (endsWithBlankLine || startsWithBlankLine(b, bStart, bEnd)) return 5;
  if (lastKind === LINE_BREAK || firstKind === LINE_BREAK) return 4;
  if (lastKind === PUNCTUATION && firstKind === WHITESPACE) return 3; // The end of a sentence.
  if (lastKind === WHITESPACE || firstKind === WHITESPACE) return 2;
  if (firstKind === JOINING || firstKind === JOINER || lastKind === JOINER) return -1;
  if (lastKind === PUNCTUATION || firstKind === PUNCTUATION) return 1;
  return 0;
}

/** Whether the text starts with a blank line: two line breaks, each `\n` or `\r\n`.
 * @param {number[]} text @param {number} start @param {number} end */
function startsWithBlankLine(text, start, end) {
  let index = start;
  for (let line = 0; line < 2; line++) {
    if (index < end && text[index] === 0x0d) index++;
    if (!(index < end && text[index] === 0x0a)) return false;
    index++;
  }
  return true;
}

// What a scalar means for the placement of an edit boundary next to it.
const WORD = 0;
const WHITESPACE = 1;
const LINE_BREAK = 2;
const JOINING = 3;
const JOINER = 4;
const PUNCTUATION = 5;

const whitespace = /^\p{White_Space}$/u;
const joining = /^[\p{Variation_Selector}\p{Emoji_Modifier}\p{Mn}\p{Mc}\p{Me}]$/u;
const wordLike = /^[\p{Alphabetic}\p{N}]$/u;
/** @type {Map<number, number>} */
const kinds = new Map();

/** @param {number} value */
function kindOf(value) {
  if (value < 0x80) return asciiKinds[value];
  let kind = kinds.get(value);
  if (kind === undefined) {
    kind = classify(value);
    if (kinds.size < 65536) kinds.set(value, kind);
  }
  return kind;
}

/** @param {number} value */
function classify(value) {
  if (value > 0x10ffff || (value >= 0xd800 && value < 0xe000)) return PUNCTUATION;
  if (value === 0x0d || value === 0x0a) return LINE_BREAK;
  if (value === 0x200d) return JOINER;
  const character = String.fromCodePoint(value);
  if (whitespace.test(character)) return WHITESPACE;
  if (joining.test(character)) return JOINING;
  if (wordLike.test(character)) return WORD;
  return PUNCTUATION;
}

const asciiKinds = Array.from({ length: 128 }, (_, value) => classify(value));
