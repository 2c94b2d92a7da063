/**
 * The hunks that turn `source` into `target`, from a diff cleaned up for people, then for efficiency.
 * @param {string} source @param {string} target
 */
export function makePatchFromTexts(source: string, target: string): Hunk[];
/**
 * Groups the edits into hunks: changes closer than two context margins share one.
 * @param {number[]} source @param {readonly Edit[]} edits
 * @returns {Hunk[]}
 */
export function makePatch(source: number[], edits: readonly Edit[]): Hunk[];
/**
 * Applies the hunks to `text`, each where its context best matches near its expected place;
 * returns the text and which hunks found a place. A hunk that finds none leaves the text alone.
 * @param {readonly Hunk[]} hunks @param {number[]} text @param {ApplyOptions} [options]
 * @returns {{ text: number[], applied: boolean[] }}
 */
export function applyPatch(hunks: readonly Hunk[], text: number[], options?: ApplyOptions | undefined): {
    text: number[];
    applied: boolean[];
};
/**
 * How concurrent edits of one string merge: overlapping rewrites are a conflict.
 * @type {ApplyOptions}
 */
export const textMergeOptions: ApplyOptions;
export type Edit = import("./edits.js").Edit;
export type Hunk = {
    /**
     * The edits, starting and ending with context where the text has any.
     */
    edits: Edit[];
    /**
     * Where the hunk starts in the text it applies to.
     */
    sourceStart: number;
    /**
     * Where it starts in the text it produces.
     */
    targetStart: number;
    /**
     * The length of the text it replaces, context included.
     */
    sourceLength: number;
    /**
     * The length of the text that replaces it.
     */
    targetLength: number;
};
/**
 * How closely a patch must match a changed text.
 */
export type ApplyOptions = {
    /**
     * 0 (exact) to 1 (anything).
     */
    matchThreshold: number;
    /**
     * How far from its place a hunk may be found.
     */
    matchDistance: number;
    /**
     * For deletions over 32 scalars, how much their middle may differ.
     */
    deleteThreshold: number;
    /**
     * Time for diffing a hunk against an inexact match.
     */
    timeoutMs: number | null;
    /**
     * Whether a hunk applies only where the text it deletes is intact.
     */
    requiresIntactDeletions: boolean;
};
