/** @typedef {"=" | "+" | "-"} Operation */
/** @typedef {{ op: Operation, s: number[] }} Edit  A run of scalars and what the diff does with it. */
/**
 * The text the edits start from (every `=` and `-`), or produce (every `=` and `+`).
 * @param {readonly Edit[]} edits @param {"source" | "target"} side
 * @returns {number[]}
 */
export function joined(edits: readonly Edit[], side: "source" | "target"): number[];
/**
 * Where a position in the source ends up in the target: positions inside deleted text map to
 * where the deletion was.
 * @param {readonly Edit[]} edits @param {number} sourceIndex
 */
export function targetIndex(edits: readonly Edit[], sourceIndex: number): number;
/**
 * Whether the source scalar at `sourceIndex` is kept (part of an `=` edit), not deleted.
 * @param {readonly Edit[]} edits @param {number} sourceIndex
 */
export function keeps(edits: readonly Edit[], sourceIndex: number): boolean;
/**
 * The scalars inserted, deleted or substituted (an insertion next to a deletion counts as
 * substitutions): the Levenshtein distance as far as these edits go.
 * @param {readonly Edit[]} edits
 */
export function levenshteinDistance(edits: readonly Edit[]): number;
export function sourceOf(edits: readonly Edit[]): number[];
export function targetOf(edits: readonly Edit[]): number[];
export type Operation = "=" | "+" | "-";
/**
 * A run of scalars and what the diff does with it.
 */
export type Edit = {
    op: Operation;
    s: number[];
};
