// Finds where a short pattern best matches a text near an expected place, allowing errors:
// diff-match-patch's `match_main` on the Bitap algorithm (Wu and Manber 1992), as
// LockstepCore's FuzzyMatcher does it.
import { firstOccurrenceIn, lastOccurrenceIn } from "./search.js";

/** Bitap keeps one bit per pattern scalar in a machine word. */
export const MAX_PATTERN_LENGTH = 32;

export class FuzzyMatcher {
  /**
   * @param {number} threshold The worst score that still matches: 0 demands perfection, 1 accepts anything.
   * @param {number} distance How far from the expected place, in scalars, a match costs as much as
   *   getting every scalar wrong; 0 demands the exact place.
   */
  constructor(threshold, distance) {
    this.threshold = threshold;
    this.distance = distance;
  }

  /**
   * The index in `text` of the best match for `pattern` near `expected`, or -1.
   * @param {number[]} pattern @param {number[]} text @param {number} expected
   */
  location(pattern, text, expected) {
    expected = Math.max(0, Math.min(expected, text.length));
    if (equalRuns(text, 0, text.length, pattern)) return 0;
    if (text.length === 0) return -1;
    if (expected + pattern.length <= text.length && equalRuns(text, expected, expected + pattern.length, pattern)) return expected;
    return this.bitap(pattern, text, expected);
  }

  /**
   * Bitap: for each number of errors in turn, one bit per pattern suffix says whether it
   * matches the text from each position with at most that many errors.
   * @param {number[]} pattern @param {number[]} text @param {number} expected
   */
  bitap(pattern, text, expected) {
    if (pattern.length > MAX_PATTERN_LENGTH) throw new RangeError(`fuzzy match pattern longer than ${MAX_PATTERN_LENGTH}`);
    const masks = alphabetMasks(pattern);
    const distance = this.distance;
    /** @param {number} errors @param {number} location */
    const score = (errors, location) => {
      const accuracy = errors / pattern.length;
      const proximity = Math.abs(expected - location);
      if (distance <= 0) return proximity === 0 ? accuracy : 1;
      return accuracy + proximity / distance;
    };

    // The nearest exact matches on either side of the expected place set the bar to beat.
    let scoreThreshold = this.threshold;
    const reach = reachOf(this.threshold, distance, text.length);
    const aheadEnd = Math.min(text.length, expected + reach + pattern.length);
    const ahead = firstOccurrenceIn(text, pattern, Math.min(expected, aheadEnd), aheadEnd);
    if (ahead >= 0) scoreThreshold = Math.min(score(0, ahead), scoreThreshold);
    const behindEnd = Math.min(text.length, expected + pattern.length);
    const behind = lastOccurrenceIn(text, pattern, Math.min(Math.max(0, expected - reach), behindEnd), behindEnd);
    if (behind >= 0) scoreThreshold = Math.min(score(0, behind), scoreThreshold);

    const matchMask = (1 << (pattern.length - 1)) >>> 0;
    let bestLocation = -1;
    let searchRadius = pattern.length + text.length;
    /** @type {Uint32Array} */
    let previousRound = new Uint32Array(0);
    for (let errors = 0; errors < pattern.length; errors++) {
      // Binary search for how far from `expected` a match with this many errors could still score.
      let low = 0;
      let mid = searchRadius;
      while (low < mid) {
        if (score(errors, expected + mid) <= scoreThreshold) low = mid;
        else searchRadius = mid;
        mid = Math.floor((searchRadius - low) / 2) + low;
      }
      searchRadius = mid;

      let start = Math.max(1, expected - mid + 1);
      const finish = Math.min(expected + mid, text.length) + pattern.length;
      const round = new Uint32Array(finish + 2);
      round[finish + 1] = 2 ** errors - 1;
      /** @param {number} index */
      const previous = (index) => (index < previousRound.length ? previousRound[index] : 0);
      for (let j = finish; j >= start; j--) {
        const scalarMask = j - 1 < text.length ? masks.get(text[j - 1]) ?? 0 : 0;
        const exact = ((round[j + 1] << 1) | 1) & scalarMask;
        if (errors === 0) round[j] = exact;
        else round[j] = exact | (((previous(j + 1) | previous(j)) << 1) | 1) | previous(j + 1);
        if ((round[j] & matchMask) !== 0) {
          const candidate = score(errors, j - 1);
          if (candidate <= scoreThreshold) {
            scoreThreshold = candidate;
            bestLocation = j - 1;
            // Already past the expected place: it only gets worse from here.
            if (!(j - 1 > expected)) break;
            // Do not stray further to the left than this match is to the right.
            start = Math.max(1, 2 * expected - (j - 1));
          }
        }
      }
      // One more error cannot beat the best match, even at the expected place.
      if (score(errors + 1, expected) > scoreThreshold) break;
      previousRound = round;
    }
    return bestLocation;
  }
}

/** How far from the expected place an exact match can still score within the threshold.
 * @param {number} threshold @param {number} distance @param {number} limit */
function reachOf(threshold, distance, limit) {
  const scaled = threshold * distance;
  if (!(distance > 0) || !(scaled > 0)) return 0;
  return Math.trunc(Math.min(scaled, limit)) + 1;
}

/** For each scalar of the pattern, the bits of its positions, the first scalar highest.
 * @param {number[]} pattern */
function alphabetMasks(pattern) {
  /** @type {Map<number, number>} */
  const masks = new Map();
  pattern.forEach((scalar, index) => {
    masks.set(scalar, ((masks.get(scalar) ?? 0) | (1 << (pattern.length - index - 1))) >>> 0);
  });
  return masks;
}

/** @param {number[]} text @param {number} start @param {number} end @param {number[]} pattern */
function equalRuns(text, start, end, pattern) {
  if (end - start !== pattern.length) return false;
  for (let index = 0; index < pattern.length; index++) if (text[start + index] !== pattern[index]) return false;
  return true;
}
