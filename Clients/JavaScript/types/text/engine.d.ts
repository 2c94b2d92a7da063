export class TextDiffEngine {
    /**
     * @param {number | null} timeoutMs How long to look for the shortest diff before settling for
     *   a valid but longer one; `null` never gives up (and never takes the half-match shortcut).
     */
    constructor(timeoutMs: number | null);
    /** @type {number | null} */
    deadline: number | null;
    get isPastDeadline(): boolean;
    /**
     * The edits that turn `old` into `neu`, merged.
     * @param {number[]} old @param {number[]} neu
     * @param {boolean} lineMode Whether texts over 100 scalars may be diffed line by line first.
     * @returns {Edit[]}
     */
    edits(old: number[], neu: number[], lineMode: boolean): Edit[];
    /**
     * `edits` of two different texts whose common prefix and suffix (measured after the prefix)
     * are known.
     * @param {number[]} old @param {number[]} neu @param {number} prefix @param {number} suffix
     * @param {boolean} lineMode
     * @returns {Edit[]}
     */
    editsKnowingEnds(old: number[], neu: number[], prefix: number, suffix: number, lineMode: boolean): Edit[];
    /**
     * The edits between two texts that differ at their first and at their last scalar.
     * @param {number[]} old @param {number[]} neu @param {boolean} lineMode
     * @returns {Edit[]}
     */
    betweenDifferentEnds(old: number[], neu: number[], lineMode: boolean): Edit[];
    /**
     * Looks for a run both texts share that is at least half as long as the longer text. Only
     * with a deadline: diffing around it is faster but may miss the shortest diff.
     * @param {number[]} old @param {number[]} neu
     */
    halfMatch(old: number[], neu: number[]): {
        oldPrefix: number[];
        oldSuffix: number[];
        newPrefix: number[];
        newSuffix: number[];
        common: number[];
    } | null;
    /**
     * The longest run both texts share that contains the quarter of `longer` from `seedStart`,
     * if it is at least half as long as `longer`.
     * @param {number[]} longer @param {number[]} shorter @param {number} seedStart
     */
    sharedRun(longer: number[], shorter: number[], seedStart: number): {
        longerStart: number;
        shorterStart: number;
        length: number;
    } | null;
    /**
     * Finds the middle snake of a shortest edit script and diffs the halves on either side of it
     * (Myers 1986, section 4b), in linear space. Past the deadline, replaces all of `old` with all
     * of `neu`.
     * @param {number[]} old @param {number[]} neu
     * @returns {Edit[]}
     */
    bisect(old: number[], neu: number[]): Edit[];
    /** @param {number[]} old @param {number[]} neu @param {number} x @param {number} y @returns {Edit[]} */
    split(old: number[], neu: number[], x: number, y: number): Edit[];
    /**
     * Diffs long texts line by line, then refines each changed block scalar by scalar.
     * @param {number[]} old @param {number[]} neu
     * @returns {Edit[]}
     */
    lineModeEdits(old: number[], neu: number[]): Edit[];
}
export type Edit = import("./edits.js").Edit;
