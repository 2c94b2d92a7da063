// Comparing and searching runs of scalars: the primitives under the diff, the cleanups and the
// patches. A run is an array with a start and an end, so that no slice is copied to compare.

/**
 * How many scalars `a[aStart..<aEnd]` and `b[bStart..<bEnd]` share at their start.
 * @param {readonly number[]} a @param {readonly number[]} b
 * @param {number} [aStart] @param {number} [aEnd] @param {number} [bStart] @param {number} [bEnd]
 */
export function commonPrefixLength(a, b, aStart = 0, aEnd = a.length, bStart = 0, bEnd = b.length) {
  const limit = Math.min(aEnd - aStart, bEnd - bStart);
  let length = 0;
  while (length < limit && a[aStart + length] === b[bStart + length]) length++;
  return length;
}

/**
 * How many scalars `a[aStart..<aEnd]` and `b[bStart..<bEnd]` share at their end.
 * @param {readonly number[]} a @param {readonly number[]} b
 * @param {number} [aStart] @param {number} [aEnd] @param {number} [bStart] @param {number} [bEnd]
 */
export function commonSuffixLength(a, b, aStart = 0, aEnd = a.length, bStart = 0, bEnd = b.length) {
  const limit = Math.min(aEnd - aStart, bEnd - bStart);
  let length = 0;
  while (length < limit && a[aEnd - 1 - length] === b[bEnd - 1 - length]) length++;
  return length;
}

/**
 * Whether `run` ends with `suffix`.
 * @param {readonly number[]} run @param {readonly number[]} suffix
 */
export function hasSuffix(run, suffix) {
  return run.length >= suffix.length && commonSuffixLength(run, suffix) === suffix.length;
}

/**
 * Whether `run` starts with `prefix`.
 * @param {readonly number[]} run @param {readonly number[]} prefix
 */
export function hasPrefix(run, prefix) {
  return run.length >= prefix.length && commonPrefixLength(run, prefix) === prefix.length;
}

/**
 * The index of the first occurrence of `pattern` that starts at or after `start`; the empty
 * pattern occurs at every index, including the length. -1 when there is none.
 * @param {readonly number[]} text @param {readonly number[]} pattern @param {number} [start]
 */
export function firstOccurrence(text, pattern, start = 0) {
  if (start > text.length) return -1;
  return firstOccurrenceIn(text, pattern, Math.max(start, 0), text.length);
}

/**
 * The index of the first occurrence of `pattern` wholly within `text[lower..<upper]`, or -1.
 *
 * A plain scan is fastest on real text; when repetitive input makes it compare too much, the
 * search finishes with Knuth–Morris–Pratt, so the worst case stays linear.
 * @param {readonly number[]} text @param {readonly number[]} pattern
 * @param {number} lower @param {number} upper
 */
export function firstOccurrenceIn(text, pattern, lower, upper) {
  if (pattern.length === 0) return lower;
  if (pattern.length > upper - lower) return -1;
  const first = pattern[0];
  let budget = 2 * (upper - lower) + pattern.length;
  for (let index = lower; index <= upper - pattern.length; index++) {
    if (text[index] !== first) continue;
    let matched = 1;
    while (matched < pattern.length && text[index + matched] === pattern[matched]) matched++;
    if (matched === pattern.length) return index;
    budget -= matched;
    if (budget < 0) return new PatternSearch(pattern).firstIndex(text, index, upper);
  }
  return -1;
}

/**
 * The start of every occurrence of the (non-empty) pattern, overlapping ones included.
 * @param {readonly number[]} text @param {readonly number[]} pattern
 */
export function occurrences(text, pattern) {
  /** @type {number[]} */
  const starts = [];
  let next = 0;
  for (;;) {
    const start = firstOccurrence(text, pattern, next);
    if (start < 0) return starts;
    starts.push(start);
    next = start + 1;
  }
}

/**
 * The index of the last occurrence of `pattern` wholly within `text[lower..<upper]`, or -1: a
 * plain backwards scan (fuzzy-match patterns are at most 32 scalars long).
 * @param {readonly number[]} text @param {readonly number[]} pattern
 * @param {number} lower @param {number} upper
 */
export function lastOccurrenceIn(text, pattern, lower, upper) {
  for (let start = upper - pattern.length; start >= lower; start--) {
    if (commonPrefixLength(text, pattern, start, start + pattern.length) === pattern.length) return start;
  }
  return -1;
}

/**
 * How far the end of `a` overlaps the start of `b`: the longest suffix of `a` that is also a
 * prefix of `b`. "abcxxx" and "xxxdef" overlap by 3.
 * @param {readonly number[]} a @param {readonly number[]} b
 */
export function overlapLength(a, b) {
  const possible = Math.min(a.length, b.length);
  if (possible === 0) return 0;
  return new PatternSearch(b.slice(0, possible)).longestPrefixEndingWith(a, a.length - possible, a.length);
}

/** Searches texts for one pattern in time linear in both (Knuth, Morris and Pratt, 1977). */
class PatternSearch {
  /** @param {readonly number[]} pattern */
  constructor(pattern) {
    this.pattern = pattern;
    /** How much of the pattern is still matched after a mismatch at `i + 1`. */
    this.fallback = new Int32Array(pattern.length);
    let matched = 0;
    for (let index = 1; index < pattern.length; index++) {
      while (matched > 0 && pattern[index] !== pattern[matched]) matched = this.fallback[matched - 1];
      if (pattern[index] === pattern[matched]) matched++;
      this.fallback[index] = matched;
    }
  }

  /**
   * The first occurrence of the (non-empty) pattern wholly within `text[lower..<upper]`, or -1.
   * @param {readonly number[]} text @param {number} lower @param {number} upper
   */
  firstIndex(text, lower, upper) {
    let matched = 0;
    for (let index = lower; index < upper; index++) {
      matched = this.advance(matched, text[index]);
      if (matched === this.pattern.length) return index - this.pattern.length + 1;
    }
    return -1;
  }

  /**
   * The length of the longest prefix of the pattern that `text[lower..<upper]` ends with.
   * @param {readonly number[]} text @param {number} lower @param {number} upper
   */
  longestPrefixEndingWith(text, lower, upper) {
    if (this.pattern.length === 0) return 0;
    let matched = 0;
    for (let index = lower; index < upper; index++) {
      // A whole match, but more text follows: keep only its longest border.
      if (matched === this.pattern.length) matched = this.fallback[matched - 1];
      matched = this.advance(matched, text[index]);
    }
    return matched;
  }

  /** @param {number} matched @param {number} scalar */
  advance(matched, scalar) {
    while (matched > 0 && this.pattern[matched] !== scalar) matched = this.fallback[matched - 1];
    return this.pattern[matched] === scalar ? matched + 1 : matched;
  }
}
