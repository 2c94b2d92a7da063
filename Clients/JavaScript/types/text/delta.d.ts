/**
 * The escaped form of inserted text: UTF-8 bytes outside the unescaped set as `%XX`.
 * @param {readonly number[]} scalars @param {number} [start] @param {number} [end]
 */
export function escapeScalars(scalars: readonly number[], start?: number | undefined, end?: number | undefined): string;
/**
 * The edits in delta form (counts in UTF-16 code units).
 * @param {readonly Edit[]} edits
 */
export function deltaOf(edits: readonly Edit[]): string;
/**
 * Applies a delta to the text it was made from, exactly (UTF-16 code units).
 * @param {string} delta @param {string} text
 * @returns {string}
 * @throws {TextDeltaError} when the delta is malformed or was made from a text of another length
 */
export function applyDelta(delta: string, text: string): string;
/**
 * Reads a delta against the scalars of the text it was made from (diff-match-patch's
 * `diff_fromDelta`), as edits.
 * @param {string} delta @param {readonly number[]} source
 * @returns {Edit[]}
 */
export function editsFromDelta(delta: string, source: readonly number[]): Edit[];
/** @typedef {import("./edits.js").Edit} Edit */
/** Why a delta could not be read against a text: what was wrong, in words. */
export class TextDeltaError extends Error {
    /** @param {string} message */
    constructor(message: string);
}
export type Edit = import("./edits.js").Edit;
export type DeltaToken = {
    kind: "=" | "-";
    count: number;
} | {
    kind: "+";
    text: string;
};
