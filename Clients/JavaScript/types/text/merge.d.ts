/** @typedef {import("./edits.js").Edit} Edit */
/**
 * Drops empty edits and joins neighbours of one kind; in each run of changes puts the deletion
 * before the insertion and moves the text they share at either end into the equalities around;
 * slides a lone change over an equality it swallows whole (`A<ins>BA</ins>C` → `<ins>AB</ins>AC`).
 * The source and target stay the same.
 * @param {readonly Edit[]} edits
 * @returns {Edit[]}
 */
export function mergeAdjacentEdits(edits: readonly Edit[]): Edit[];
export type Edit = import("./edits.js").Edit;
