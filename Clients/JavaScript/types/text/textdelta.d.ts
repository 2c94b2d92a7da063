/** @typedef {import("./edits.js").Edit} Edit */
/**
 * The delta that turns `old` into `neu`: a diff, cleaned up for efficiency when it has more
 * than two edits, as Simperium's jsondiff does. Equal empty strings give "".
 * @param {string} old @param {string} neu
 * @returns {string}
 */
export function makeDelta(old: string, neu: string): string;
/**
 * Carries the edit that took `base` to `edited` over to `current`, as the server merges
 * concurrent text edits: each patch lands where its context best matches, and one that deletes
 * only if what it deletes is intact there. null when a patch finds no place (a conflict).
 * @param {string} base @param {string} edited @param {string} current
 * @returns {string | null}
 */
export function mergeText(base: string, edited: string, current: string): string | null;
/**
 * Rebases text delta `mine`, made against `base`, onto `theirText` (which concurrent edits made
 * of `base`): the delta to apply to `theirText`, "" as `{ rebased: null }` when nothing is left,
 * or `{ conflict: true }` when a patch finds no place.
 * @param {string} mine @param {string} theirText @param {string} base
 * @returns {{ rebased: string | null } | { conflict: true }}
 */
export function rebaseDelta(mine: string, theirText: string, base: string): {
    rebased: string | null;
} | {
    conflict: true;
};
export type Edit = import("./edits.js").Edit;
export { applyDelta, TextDeltaError } from "./delta.js";
