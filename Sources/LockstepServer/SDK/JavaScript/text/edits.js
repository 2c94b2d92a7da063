// A diff as a list of edits: runs of text both sides share (`=`), or only the target has (`+`),
// or only the source has (`-`). Read in order they spell out both texts: the source is every
// `=` and `-`, the target every `=` and `+`.

/** @typedef {"=" | "+" | "-"} Operation */
/** @typedef {{ op: Operation, s: number[] }} Edit  A run of scalars and what the diff does with it. */

/**
 * The text the edits start from (every `=` and `-`), or produce (every `=` and `+`).
 * @param {readonly Edit[]} edits @param {"source" | "target"} side
 * @returns {number[]}
 */
export function joined(edits, side) {
  const skipped = side === "source" ? "+" : "-";
  /** @type {number[]} */
  const scalars = [];
  for (const edit of edits) if (edit.op !== skipped) for (const scalar of edit.s) scalars.push(scalar);
  return scalars;
}

/** @param {readonly Edit[]} edits */
export const sourceOf = (edits) => joined(edits, "source");
/** @param {readonly Edit[]} edits */
export const targetOf = (edits) => joined(edits, "target");

/**
 * Where a position in the source ends up in the target: positions inside deleted text map to
 * where the deletion was.
 * @param {readonly Edit[]} edits @param {number} sourceIndex
 */
export function targetIndex(edits, sourceIndex) {
  let sourceEnd = 0;
  let targetEnd = 0;
  for (const edit of edits) {
    const previousSourceEnd = sourceEnd;
    const previousTargetEnd = targetEnd;
    if (edit.op !== "+") sourceEnd += edit.s.length;
    if (edit.op !== "-") targetEnd += edit.s.length;
    if (sourceEnd > sourceIndex) {
      if (edit.op === "-") return previousTargetEnd;
      return previousTargetEnd + (sourceIndex - previousSourceEnd);
    }
  }
  return targetEnd + (sourceIndex - sourceEnd);
}

/**
 * Whether the source scalar at `sourceIndex` is kept (part of an `=` edit), not deleted.
 * @param {readonly Edit[]} edits @param {number} sourceIndex
 */
export function keeps(edits, sourceIndex) {
  let sourceEnd = 0;
  for (const edit of edits) {
    if (edit.op === "+") continue;
    sourceEnd += edit.s.length;
    if (sourceEnd > sourceIndex) return edit.op === "=";
  }
  return false;
}

/**
 * The scalars inserted, deleted or substituted (an insertion next to a deletion counts as
 * substitutions): the Levenshtein distance as far as these edits go.
 * @param {readonly Edit[]} edits
 */
export function levenshteinDistance(edits) {
  let distance = 0;
  let inserted = 0;
  let deleted = 0;
  for (const edit of edits) {
    if (edit.op === "+") inserted += edit.s.length;
    else if (edit.op === "-") deleted += edit.s.length;
    else {
      distance += Math.max(inserted, deleted);
      inserted = 0;
      deleted = 0;
    }
  }
  return distance + Math.max(inserted, deleted);
}
