/**
 * How many scalars `a[aStart..<aEnd]` and `b[bStart..<bEnd]` share at their start.
 * @param {readonly number[]} a @param {readonly number[]} b
 * @param {number} [aStart] @param {number} [aEnd] @param {number} [bStart] @param {number} [bEnd]
 */
export function commonPrefixLength(a: readonly number[], b: readonly number[], aStart?: number | undefined, aEnd?: number | undefined, bStart?: number | undefined, bEnd?: number | undefined): number;
/**
 * How many scalars `a[aStart..<aEnd]` and `b[bStart..<bEnd]` share at their end.
 * @param {readonly number[]} a @param {readonly number[]} b
 * @param {number} [aStart] @param {number} [aEnd] @param {number} [bStart] @param {number} [bEnd]
 */
export function commonSuffixLength(a: readonly number[], b: readonly number[], aStart?: number | undefined, aEnd?: number | undefined, bStart?: number | undefined, bEnd?: number | undefined): number;
/**
 * Whether `run` ends with `suffix`.
 * @param {readonly number[]} run @param {readonly number[]} suffix
 */
export function hasSuffix(run: readonly number[], suffix: readonly number[]): boolean;
/**
 * Whether `run` starts with `prefix`.
 * @param {readonly number[]} run @param {readonly number[]} prefix
 */
export function hasPrefix(run: readonly number[], prefix: readonly number[]): boolean;
/**
 * The index of the first occurrence of `pattern` that starts at or after `start`; the empty
 * pattern occurs at every index, including the length. -1 when there is none.
 * @param {readonly number[]} text @param {readonly number[]} pattern @param {number} [start]
 */
export function firstOccurrence(text: readonly number[], pattern: readonly number[], start?: number | undefined): number;
/**
 * The index of the first occurrence of `pattern` wholly within `text[lower..<upper]`, or -1.
 *
 * A plain scan is fastest on real text; when repetitive input makes it compare too much, the
 * search finishes with Knuth–Morris–Pratt, so the worst case stays linear.
 * @param {readonly number[]} text @param {readonly number[]} pattern
 * @param {number} lower @param {number} upper
 */
export function firstOccurrenceIn(text: readonly number[], pattern: readonly number[], lower: number, upper: number): number;
/**
 * The start of every occurrence of the (non-empty) pattern, overlapping ones included.
 * @param {readonly number[]} text @param {readonly number[]} pattern
 */
export function occurrences(text: readonly number[], pattern: readonly number[]): number[];
/**
 * The index of the last occurrence of `pattern` wholly within `text[lower..<upper]`, or -1: a
 * plain backwards scan (fuzzy-match patterns are at most 32 scalars long).
 * @param {readonly number[]} text @param {readonly number[]} pattern
 * @param {number} lower @param {number} upper
 */
export function lastOccurrenceIn(text: readonly number[], pattern: readonly number[], lower: number, upper: number): number;
/**
 * How far the end of `a` overlaps the start of `b`: the longest suffix of `a` that is also a
 * prefix of `b`. "abcxxx" and "xxxdef" overlap by 3.
 * @param {readonly number[]} a @param {readonly number[]} b
 */
export function overlapLength(a: readonly number[], b: readonly number[]): number;
