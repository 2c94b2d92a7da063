/** @typedef {import("./edits.js").Edit} Edit */
/**
 * Slides each change alone between two equalities sideways to the place where its ends fall
 * best: `The c<ins>at c</ins>ame` → `The <ins>cat </ins>came`. Best first: the edge of the
 * text, blank lines, line breaks, the end of a sentence, whitespace, punctuation; inside a word
 * is poor, inside a user-perceived character worst.
 * @param {readonly Edit[]} input
 * @returns {Edit[]}
 */
export function alignToWordBoundaries(input: readonly Edit[]): Edit[];
export type Edit = import("./edits.js").Edit;
