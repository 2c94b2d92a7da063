// The cleanup that rewrites a diff for a person to read (diff-match-patch's `cleanupSemantic`),
// as LockstepCore's `cleanUpSemantically` does it.
import { alignToWordBoundaries } from "./boundaries.js";
import { replaceEqualities } from "./efficiency.js";
import { overlapLength } from "./search.js";

/** @typedef {import("./edits.js").Edit} Edit */

/**
 * Turns every equality no longer than the changes on both sides of it into a deletion and an
 * insertion, so whole words change; aligns the changes to word boundaries; and keeps the
 * overlap of a deletion and an insertion when it is at least half of one of them
 * (`<del>abcxxx</del><ins>xxxdef</ins>` → `<del>abc</del>xxx<ins>def</ins>`).
 * @param {readonly Edit[]} edits
 * @returns {Edit[]}
 */
export function cleanUpSemantically(edits) {
  return keepOverlaps(alignToWordBoundaries(eliminateSmallEqualities(edits)));
}

/** @param {readonly Edit[]} edits @returns {Edit[]} */
function eliminateSmallEqualities(edits) {
  const replaced = new Array(edits.length).fill(false);
  /** @type {number[]} */
  const equalities = [];
  /** @type {number | null} */
  let lastEquality = null;
  let insertedBefore = 0;
  let deletedBefore = 0;
  let insertedAfter = 0;
  let deletedAfter = 0;

  let index = 0;
  while (index < edits.length) {
    const edit = edits[index];
    if (edit.op === "=" && !replaced[index]) {
      equalities.push(index);
      insertedBefore = insertedAfter;
      deletedBefore = deletedAfter;
      insertedAfter = 0;
      deletedAfter = 0;
      lastEquality = index;
    } else {
      const length = edit.s.length;
      if (edit.op !== "-") insertedAfter += length;
      if (edit.op !== "+") deletedAfter += length;
      if (lastEquality !== null) {
        const size = edits[lastEquality].s.length;
        if (size <= Math.max(insertedBefore, deletedBefore) && size <= Math.max(insertedAfter, deletedAfter)) {
          replaced[lastEquality] = true;
          equalities.pop();
          // The equality before may now be small enough too: scan again from the one before that.
          equalities.pop();
          index = equalities.length > 0 ? equalities[equalities.length - 1] : -1;
          insertedAfter = 0;
          deletedAfter = 0;
          lastEquality = null;
        }
      }
    }
    index += 1;
  }
  return replaceEqualities(edits, replaced);
}

/** @param {readonly Edit[]} edits @returns {Edit[]} */
function keepOverlaps(edits) {
  /** @type {Edit[]} */
  const result = [];
  let index = 0;
  while (index < edits.length) {
    if (!(index + 1 < edits.length && edits[index].op === "-" && edits[index + 1].op === "+")) {
      result.push(edits[index]);
      index += 1;
      continue;
    }
    const deletion = edits[index].s;
    const insertion = edits[index + 1].s;
    const overlap = overlapLength(deletion, insertion);
    const reverseOverlap = overlapLength(insertion, deletion);
    if (overlap >= reverseOverlap && overlap > 0 && isSubstantial(overlap, deletion, insertion)) {
      // <del>abcxxx</del><ins>xxxdef</ins> → <del>abc</del>xxx<ins>def</ins>
      appendUnlessEmpty(result, "-", deletion.slice(0, deletion.length - overlap));
      result.push({ op: "=", s: insertion.slice(0, overlap) });
      appendUnlessEmpty(result, "+", insertion.slice(overlap));
    } else if (reverseOverlap > overlap && isSubstantial(reverseOverlap, deletion, insertion)) {
      // <del>xxxabc</del><ins>defxxx</ins> → <ins>def</ins>xxx<del>abc</del>
      appendUnlessEmpty(result, "+", insertion.slice(0, insertion.length - reverseOverlap));
      result.push({ op: "=", s: deletion.slice(0, reverseOverlap) });
      appendUnlessEmpty(result, "-", deletion.slice(reverseOverlap));
    } else {
      result.push(edits[index], edits[index + 1]);
    }
    index += 2;
  }
  return result;
}

/** @param {number} overlap @param {number[]} deletion @param {number[]} insertion */
function isSubstantial(overlap, deletion, insertion) {
  return overlap * 2 >= deletion.length || overlap * 2 >= insertion.length;
}

/** @param {Edit[]} edits @param {"+" | "-"} op @param {number[]} scalars */
function appendUnlessEmpty(edits, op, scalars) {
  if (scalars.length > 0) edits.push({ op, s: scalars });
}
