// Puts edits in their simplest equivalent form: diff-match-patch's `cleanupMerge`, as
// LockstepCore's `mergeAdjacentEdits` does it.
import { commonPrefixLength, commonSuffixLength, hasPrefix, hasSuffix } from "./search.js";

/** @typedef {import("./edits.js").Edit} Edit */

/**
 * Drops empty edits and joins neighbours of one kind; in each run of changes puts the deletion
 * before the insertion and moves the text they share at either end into the equalities around;
 * slides a lone change over an equality it swallows whole (`A<ins>BA</ins>C` → `<ins>AB</ins>AC`).
 * The source and target stay the same.
 * @param {readonly Edit[]} edits
 * @returns {Edit[]}
 */
export function mergeAdjacentEdits(edits) {
  let merged = mergeRuns(edits);
  for (;;) {
    const slid = slideLoneChanges(merged);
    if (!slid) return merged;
    merged = mergeRuns(slid);
  }
}

/** @param {readonly Edit[]} edits @returns {Edit[]} */
function mergeRuns(edits) {
  /** @type {Edit[]} */
  const merged = [];
  /** @type {number[]} */
  let deleted = [];
  /** @type {number[]} */
  let inserted = [];

  /** @param {number[]} equality */
  const closeRun = (equality) => {
    if (deleted.length > 0 && inserted.length > 0) {
      const prefix = commonPrefixLength(inserted, deleted);
      if (prefix > 0) {
        appendEquality(merged, inserted.slice(0, prefix));
        inserted = inserted.slice(prefix);
        deleted = deleted.slice(prefix);
      }
      const suffix = commonSuffixLength(inserted, deleted);
      if (suffix > 0) {
        equality = inserted.slice(inserted.length - suffix).concat(equality);
        inserted = inserted.slice(0, inserted.length - suffix);
        deleted = deleted.slice(0, deleted.length - suffix);
      }
    }
    if (deleted.length > 0) merged.push({ op: "-", s: deleted });
    if (inserted.length > 0) merged.push({ op: "+", s: inserted });
    appendEquality(merged, equality);
    deleted = [];
    inserted = [];
  };

  for (const edit of edits) {
    if (edit.op === "-") deleted = deleted.concat(edit.s);
    else if (edit.op === "+") inserted = inserted.concat(edit.s);
    else closeRun(edit.s);
  }
  closeRun([]);
  return merged;
}

/** Appends kept text, joining it to a final equality if there is one.
 * @param {Edit[]} edits @param {number[]} text */
function appendEquality(edits, text) {
  if (text.length === 0) return;
  const last = edits[edits.length - 1];
  if (last && last.op === "=") edits[edits.length - 1] = { op: "=", s: last.s.concat(text) };
  else edits.push({ op: "=", s: text });
}

/**
 * Slides each change alone between two equalities over one of them when it ends with the one
 * before or starts with the one after; `null` when nothing moved.
 * @param {readonly Edit[]} input @returns {Edit[] | null}
 */
function slideLoneChanges(input) {
  const edits = input.slice();
  /** @type {Edit[]} */
  const slid = [];
  let moved = false;
  let index = 0;
  while (index < edits.length) {
    const change = edits[index];
    const before = slid[slid.length - 1];
    if (change.op !== "=" && index + 1 < edits.length && edits[index + 1].op === "=" && before && before.op === "=") {
      const after = edits[index + 1];
      if (hasSuffix(change.s, before.s)) {
        // A<ins>BA</ins>C → <ins>AB</ins>AC
        slid.pop();
        slid.push({ op: change.op, s: before.s.concat(change.s.slice(0, change.s.length - before.s.length)) });
        edits[index + 1] = { op: "=", s: before.s.concat(after.s) };
        moved = true;
        index += 1;
        continue;
      }
      if (hasPrefix(change.s, after.s)) {
        // A<ins>CB</ins>C → AC<ins>BC</ins>
        slid[slid.length - 1] = { op: "=", s: before.s.concat(after.s) };
        slid.push({ op: change.op, s: change.s.slice(after.s.length).concat(after.s) });
        moved = true;
        index += 2;
        continue;
      }
    }
    slid.push(change);
    index += 1;
  }
  return moved ? slid : null;
}
