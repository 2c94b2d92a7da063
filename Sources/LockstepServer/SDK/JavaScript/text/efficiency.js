// The cleanup that rewrites a diff for machines to store and send, as LockstepCore does it.
import { mergeAdjacentEdits } from "./merge.js";

/** @typedef {import("./edits.js").Edit} Edit */

/**
 * Rewrites the edits to be cheap to send (diff-match-patch's `cleanupEfficiency`): an equality
 * shorter than `editCost` with changes of both kinds on both sides, or shorter than half of it
 * with three of those four, becomes a deletion and an insertion.
 * @param {readonly Edit[]} edits @param {number} [editCost] Simperium's jsondiff uses 4.
 * @returns {Edit[]}
 */
export function cleanUpForEfficiency(edits, editCost = 4) {
  const replaced = new Array(edits.length).fill(false);
  /** @type {number[]} */
  let candidates = [];
  /** @type {number | null} */
  let lastCandidate = null;
  let insertBefore = false;
  let deleteBefore = false;
  let insertAfter = false;
  let deleteAfter = false;

  let index = 0;
  while (index < edits.length) {
    const edit = edits[index];
    if (edit.op === "=" && !replaced[index]) {
      if (edit.s.length < editCost && (insertAfter || deleteAfter)) {
        candidates.push(index);
        insertBefore = insertAfter;
        deleteBefore = deleteAfter;
        lastCandidate = index;
      } else {
        // A long equality, or one with no change before it, is worth keeping.
        candidates = [];
        lastCandidate = null;
      }
      insertAfter = false;
      deleteAfter = false;
    } else {
      if (edit.op !== "-") insertAfter = true;
      if (edit.op !== "+") deleteAfter = true;
      const kindsAround = [insertBefore, deleteBefore, insertAfter, deleteAfter].filter(Boolean).length;
      if (lastCandidate !== null
        && (kindsAround === 4 || (kindsAround === 3 && edits[lastCandidate].s.length * 2 < editCost))) {
        replaced[lastCandidate] = true;
        candidates.pop();
        lastCandidate = null;
        if (insertBefore && deleteBefore) {
          // Nothing before the candidate changed, so keep going.
          insertAfter = true;
          deleteAfter = true;
          candidates = [];
        } else {
          // The equality before may now qualify: scan again from the one before that.
          candidates.pop();
          index = candidates.length > 0 ? candidates[candidates.length - 1] : -1;
          insertAfter = false;
          deleteAfter = false;
        }
      }
    }
    index += 1;
  }
  return replaceEqualities(edits, replaced);
}

/**
 * Replaces each equality marked in `replaced` by a deletion and an insertion of its text, then
 * merges the runs this makes.
 * @param {readonly Edit[]} edits @param {boolean[]} replaced
 * @returns {Edit[]}
 */
export function replaceEqualities(edits, replaced) {
  if (!replaced.includes(true)) return edits.slice();
  /** @type {Edit[]} */
  const expanded = [];
  edits.forEach((edit, index) => {
    if (replaced[index]) expanded.push({ op: "-", s: edit.s }, { op: "+", s: edit.s });
    else expanded.push(edit);
  });
  return mergeAdjacentEdits(expanded);
}
