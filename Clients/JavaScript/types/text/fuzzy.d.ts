/** Bitap keeps one bit per pattern scalar in a machine word. */
export const MAX_PATTERN_LENGTH: 32;
export class FuzzyMatcher {
    /**
     * @param {number} threshold The worst score that still matches: 0 demands perfection, 1 accepts anything.
     * @param {number} distance How far from the expected place, in scalars, a match costs as much as
     *   getting every scalar wrong; 0 demands the exact place.
     */
    constructor(threshold: number, distance: number);
    threshold: number;
    distance: number;
    /**
     * The index in `text` of the best match for `pattern` near `expected`, or -1.
     * @param {number[]} pattern @param {number[]} text @param {number} expected
     */
    location(pattern: number[], text: number[], expected: number): number;
    /**
     * Bitap: for each number of errors in turn, one bit per pattern suffix says whether it
     * matches the text from each position with at most that many errors.
     * @param {number[]} pattern @param {number[]} text @param {number} expected
     */
    bitap(pattern: number[], text: number[], expected: number): number;
}
