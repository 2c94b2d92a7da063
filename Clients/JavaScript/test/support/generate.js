// Generated inputs for the tests: texts with every kind of character the diff must handle,
// JSON documents, and concurrent edits of them, from a seeded generator so that a failure
// names the seed that reproduces it.

/** A small, fast, seeded generator (mulberry32). */
export class Random {
  /** @param {number} seed */
  constructor(seed) {
    this.seed = seed >>> 0;
    this.state = this.seed;
  }

  /** A float in [0, 1). */
  next() {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). @param {number} n */
  int(n) {
    return Math.floor(this.next() * n);
  }

  /** @template T @param {readonly T[]} items @returns {T} */
  pick(items) {
    return items[this.int(items.length)];
  }

  /** @param {number} p */
  chance(p) {
    return this.next() < p;
  }
}

/** Characters that stress the diff: ASCII, spaces and line breaks, escapes, accents (composed
 * and combining), a zero-width joiner, CJK, emoji (two UTF-16 units each), variation selectors. */
const alphabet = [
  ..."abcdefghij", ..."ABC", ..."0123", " ", " ", " ", "\n", "\n", ".", ",", "!", "%", "#", "+", "\t", "\"", "\\",
  "é", "e\u0301", "ü", "ñ", "ß", "中", "文", "字", "😀", "👍🏽", "👩‍👩‍👧", "🇫🇷", "❤️", "\u200d", "ℕ", "\u00a0",
];
const words = ["the", "quick", "brown", "fox", "milk", "eggs", "box", "sofa", "lamp", "😀", "café", "中文"];

/** A random text, sometimes of words and lines (the diff's line mode needs over 100 scalars). @param {Random} random */
export function text(random, maxLength = 40) {
  const length = random.int(maxLength + 1);
  let out = "";
  if (random.chance(0.3)) {
    while (out.length < length) out += random.pick(words) + random.pick([" ", " ", "\n", ", ", ".\n"]);
    return out;
  }
  for (let index = 0; index < length; index++) out += random.pick(alphabet);
  return out;
}

/** `text` changed by a few random edits: inserts, deletes and replacements of runs.
 * @param {Random} random @param {string} original */
export function edited(random, original) {
  let chars = Array.from(original);
  const count = 1 + random.int(3);
  for (let edit = 0; edit < count; edit++) {
    const at = random.int(chars.length + 1);
    const kind = random.int(3);
    const removed = kind === 0 ? 0 : random.int(Math.min(8, chars.length - at) + 1);
    const inserted = kind === 1 ? [] : Array.from(text(random, 6));
    chars.splice(at, removed, ...inserted);
  }
  if (random.chance(0.05)) chars = Array.from(text(random, 30));
  return chars.join("");
}

const floats = [0.5, -1.25, 3.14159, 1e-7, 2.5e-5, 1.5e300, -2e22, 123456.789, 0.1, 1e16 + 2, 9007199254740994, 6.02e23];

/** A random JSON number: safe integers and floats with no integral value, or huge ones.
 * @param {Random} random */
export function number(random) {
  if (random.chance(0.6)) return random.int(2001) - 1000;
  if (random.chance(0.2)) return (random.chance(0.5) ? 1 : -1) * random.int(2 ** 52);
  if (random.chance(0.5)) return random.pick(floats);
  return (random.next() - 0.5) * 10 ** random.int(12) + 0.5;
}

/** A random JSON value, nested up to `depth`. @param {Random} random @returns {any} */
export function value(random, depth = 2) {
  switch (random.int(depth > 0 ? 7 : 5)) {
    case 0: return text(random, 12);
    case 1: return number(random);
    case 2: return random.chance(0.5);
    case 3: return null;
    case 4: return text(random, 30);
    case 5: return Array.from({ length: random.int(5) }, () => value(random, depth - 1));
    default: return object(random, depth - 1);
  }
}

const memberNames = ["title", "notes", "count", "done", "tags", "room", "n", "a", "b", "é", "😀", "\ue000", "", "__proto__", "z"];

/** A random JSON object. @param {Random} random */
export function object(random, depth = 2) {
  /** @type {Record<string, any>} */
  const result = {};
  const count = random.int(5);
  for (let index = 0; index < count; index++) {
    Object.defineProperty(result, random.pick(memberNames), { value: value(random, depth), enumerable: true, writable: true, configurable: true });
  }
  return result;
}

/** A concurrent edit of a document: members edited as text, replaced, added, removed, nested
 * objects and lists edited inside. @param {Random} random @param {any} document @returns {any} */
export function editedDocument(random, document, depth = 2) {
  const result = { ...document };
  const names = Object.keys(result);
  const edits = 1 + random.int(3);
  for (let index = 0; index < edits; index++) {
    const name = names.length > 0 && random.chance(0.8) ? random.pick(names) : random.pick(memberNames);
    const current = Object.prototype.hasOwnProperty.call(result, name) ? result[name] : undefined;
    let next;
    if (typeof current === "string" && random.chance(0.7)) next = edited(random, current);
    else if (Array.isArray(current) && random.chance(0.6)) next = editedList(random, current);
    else if (current && typeof current === "object" && !Array.isArray(current) && depth > 0 && random.chance(0.6)) {
      next = editedDocument(random, current, depth - 1);
    } else if (typeof current === "number" && random.chance(0.5)) next = current + random.int(10) - 5;
    else if (current !== undefined && random.chance(0.2)) next = undefined;
    else next = value(random, 1);
    if (next === undefined) delete result[name];
    else Object.defineProperty(result, name, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return result;
}

/** @param {Random} random @param {any[]} list */
function editedList(random, list) {
  const result = list.slice();
  const at = random.int(result.length + 1);
  switch (random.int(3)) {
    case 0: result.splice(at, 0, value(random, 0)); break;
    case 1: result.splice(at, 1); break;
    default: if (at < result.length) result[at] = typeof result[at] === "string" ? edited(random, result[at]) : value(random, 0);
  }
  return result;
}
