/** @typedef {import("./edits.js").Edit} Edit */
/**
 * Rewrites the edits to be cheap to send (diff-match-patch's `cleanupEfficiency`): an equality
 * shorter than `editCost` with changes of both kinds on both sides, or shorter than half of it
 * with three of those four, becomes a deletion and an insertion.
 * @param {readonly Edit[]} edits @param {number} [editCost] Simperium's jsondiff uses 4.
 * @returns {Edit[]}
 */
export function cleanUpForEfficiency(edits: readonly Edit[], editCost?: number | undefined): Edit[];
/**
 * Replaces each equality marked in `replaced` by a deletion and an insertion of its text, then
 * merges the runs this makes.
 * @param {readonly Edit[]} edits @param {boolean[]} replaced
 * @returns {Edit[]}
 */
export function replaceEqualities(edits: readonly Edit[], replaced: boolean[]): Edit[];
export type Edit = import("./edits.js").Edit;
