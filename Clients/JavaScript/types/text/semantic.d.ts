/** @typedef {import("./edits.js").Edit} Edit */
/**
 * Turns every equality no longer than the changes on both sides of it into a deletion and an
 * insertion, so whole words change; aligns the changes to word boundaries; and keeps the
 * overlap of a deletion and an insertion when it is at least half of one of them
 * (`<del>abcxxx</del><ins>xxxdef</ins>` → `<del>abc</del>xxx<ins>def</ins>`).
 * @param {readonly Edit[]} edits
 * @returns {Edit[]}
 */
export function cleanUpSemantically(edits: readonly Edit[]): Edit[];
export type Edit = import("./edits.js").Edit;
