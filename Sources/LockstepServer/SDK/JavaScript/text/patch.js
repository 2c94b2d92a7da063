// Patches: hunks of edits with context, made against one text and applied with fuzzy matching
// to another (diff-match-patch's `patch_make` and `patch_apply`), as LockstepCore's TextPatch
// does it. This is how concurrent edits of one string merge.
import { LARGEST_SCALAR, scalarsOf, sameScalars } from "./scalars.js";
import { TextDiffEngine } from "./engine.js";
import { cleanUpSemantically } from "./semantic.js";
import { cleanUpForEfficiency } from "./efficiency.js";
import { alignToWordBoundaries } from "./boundaries.js";
import { occurrences } from "./search.js";
import { FuzzyMatcher, MAX_PATTERN_LENGTH } from "./fuzzy.js";
import { keeps, levenshteinDistance, sourceOf, targetIndex, targetOf } from "./edits.js";

/** @typedef {import("./edits.js").Edit} Edit */
/**
 * @typedef {object} Hunk
 * @property {Edit[]} edits The edits, starting and ending with context where the text has any.
 * @property {number} sourceStart Where the hunk starts in the text it applies to.
 * @property {number} targetStart Where it starts in the text it produces.
 * @property {number} sourceLength The length of the text it replaces, context included.
 * @property {number} targetLength The length of the text that replaces it.
 */
/**
 * @typedef {object} ApplyOptions How closely a patch must match a changed text.
 * @property {number} matchThreshold 0 (exact) to 1 (anything).
 * @property {number} matchDistance How far from its place a hunk may be found.
 * @property {number} deleteThreshold For deletions over 32 scalars, how much their middle may differ.
 * @property {number | null} timeoutMs Time for diffing a hunk against an inexact match.
 * @property {boolean} requiresIntactDeletions Whether a hunk applies only where the text it deletes is intact.
 */

/** How much context surrounds each change, at least, in scalars. */
const CONTEXT_MARGIN = 4;

/**
 * diff-match-patch's defaults, which Simperium uses.
 * @type {ApplyOptions}
 */
const defaultApplyOptions = Object.freeze({
  matchThreshold: 0.5, matchDistance: 1000, deleteThreshold: 0.5, timeoutMs: 1000, requiresIntactDeletions: false,
});

/**
 * How concurrent edits of one string merge: overlapping rewrites are a conflict.
 * @type {ApplyOptions}
 */
export const textMergeOptions = Object.freeze({ ...defaultApplyOptions, requiresIntactDeletions: true });

/** @returns {Hunk} */
const emptyHunk = () => ({ edits: [], sourceStart: 0, targetStart: 0, sourceLength: 0, targetLength: 0 });

/**
 * The hunks that turn `source` into `target`, from a diff cleaned up for people, then for efficiency.
 * @param {string} source @param {string} target
 */
export function makePatchFromTexts(source, target) {
  const sourceScalars = scalarsOf(source);
  let edits = new TextDiffEngine(1000).edits(sourceScalars, scalarsOf(target), true);
  if (edits.length > 2) edits = cleanUpForEfficiency(cleanUpSemantically(edits));
  return makePatch(sourceScalars, edits);
}

/**
 * Groups the edits into hunks: changes closer than two context margins share one.
 * @param {number[]} source @param {readonly Edit[]} edits
 * @returns {Hunk[]}
 */
export function makePatch(source, edits) {
  /** @type {Hunk[]} */
  const patches = [];
  let hunk = emptyHunk();
  // The source with the hunks so far applied: each hunk's positions and context refer to it.
  let patchedSource = source.slice();
  let sourceIndex = 0;
  let targetIndex = 0;

  const closeHunk = () => {
    const replacedStart = hunk.sourceStart;
    const replacedEnd = hunk.sourceStart + hunk.sourceLength;
    const replacement = targetOf(hunk.edits);
    addContext(hunk, patchedSource);
    patches.push(hunk);
    patchedSource = patchedSource.slice(0, replacedStart).concat(replacement, patchedSource.slice(replacedEnd));
    hunk = emptyHunk();
    sourceIndex = targetIndex;
  };

  edits.forEach((edit, index) => {
    const length = edit.s.length;
    if (hunk.edits.length === 0 && edit.op !== "=") {
      hunk.sourceStart = sourceIndex;
      hunk.targetStart = targetIndex;
    }
    if (edit.op === "+") {
      hunk.edits.push(edit);
      hunk.targetLength += length;
    } else if (edit.op === "-") {
      hunk.edits.push(edit);
      hunk.sourceLength += length;
    } else if (length <= 2 * CONTEXT_MARGIN && hunk.edits.length > 0 && index !== edits.length - 1) {
      // Short enough to keep the changes on either side in one hunk.
      hunk.edits.push(edit);
      hunk.sourceLength += length;
      hunk.targetLength += length;
    } else if (length >= 2 * CONTEXT_MARGIN && hunk.edits.length > 0) {
      closeHunk();
    }
    if (edit.op !== "+") sourceIndex += length;
    if (edit.op !== "-") targetIndex += length;
  });
  if (hunk.edits.length > 0) closeHunk();
  return patches;
}

/**
 * Surrounds the hunk with enough unchanged text to make it unique in `text`, up to the longest
 * pattern fuzzy matching handles, then one margin more.
 * @param {Hunk} hunk @param {number[]} text
 */
function addContext(hunk, text) {
  if (text.length === 0) return;
  const margin = CONTEXT_MARGIN;
  /** @param {number} padding */
  const window = (padding) => [
    Math.max(0, hunk.targetStart - padding), Math.min(text.length, hunk.targetStart + hunk.sourceLength + padding),
  ];
  // Widen the window a margin at a time while it also occurs elsewhere; every other occurrence
  // of a wider window contains one of the narrower, so one scan finds the candidates.
  let padding = 0;
  /** @type {number[]} */
  let otherStarts = [];
  /** @type {number[] | null} */
  let scanned = null;
  for (;;) {
    const [lower, upper] = window(padding);
    if (!(upper - lower < MAX_PATTERN_LENGTH - 2 * margin)) break;
    if (upper === lower) {
      // The empty window occurs everywhere.
      padding += margin;
      continue;
    }
    const current = text.slice(lower, upper);
    if (scanned) {
      const shift = scanned[0] - lower;
      otherStarts = otherStarts.map((start) => start - shift).filter((start) =>
        start >= 0 && start + current.length <= text.length && sameScalars(text.slice(start, start + current.length), current));
    } else {
      otherStarts = occurrences(text, current).filter((start) => start !== lower);
    }
    if (otherStarts.length === 0) break;
    scanned = [lower, upper];
    padding += margin;
  }
  padding += margin;

  const prefix = text.slice(Math.max(0, hunk.targetStart - padding), hunk.targetStart);
  const suffix = text.slice(
    Math.min(text.length, hunk.targetStart + hunk.sourceLength), Math.min(text.length, hunk.targetStart + hunk.sourceLength + padding));
  if (prefix.length > 0) hunk.edits.unshift({ op: "=", s: prefix });
  if (suffix.length > 0) hunk.edits.push({ op: "=", s: suffix });
  hunk.sourceStart -= prefix.length;
  hunk.targetStart -= prefix.length;
  hunk.sourceLength += prefix.length + suffix.length;
  hunk.targetLength += prefix.length + suffix.length;
}

/** @param {Hunk} hunk @returns {Hunk} */
const copyHunk = (hunk) => ({ ...hunk, edits: hunk.edits.slice() });

/**
 * Adds context before the first hunk and after the last from padding values above U+10FFFF,
 * which no text holds; returns the padding for the caller to put around the text.
 * @param {Hunk[]} patches
 */
function addPadding(patches) {
  const length = CONTEXT_MARGIN;
  const padding = Array.from({ length }, (_, index) => LARGEST_SCALAR + index + 1);
  for (const patch of patches) {
    patch.sourceStart += length;
    patch.targetStart += length;
  }
  const first = patches[0];
  const head = first.edits[0];
  if (head && head.op === "=") {
    if (head.s.length < length) {
      const extra = length - head.s.length;
      first.edits[0] = { op: "=", s: padding.slice(padding.length - extra).concat(head.s) };
      moveStart(first, -extra);
    }
  } else {
    first.edits.unshift({ op: "=", s: padding });
    moveStart(first, -length);
  }
  const last = patches[patches.length - 1];
  const tail = last.edits[last.edits.length - 1];
  if (tail && tail.op === "=") {
    if (tail.s.length < length) {
      const extra = length - tail.s.length;
      last.edits[last.edits.length - 1] = { op: "=", s: tail.s.concat(padding.slice(0, extra)) };
      last.sourceLength += extra;
      last.targetLength += extra;
    }
  } else {
    last.edits.push({ op: "=", s: padding });
    last.sourceLength += length;
    last.targetLength += length;
  }
  return padding;
}

/**
 * Moves the start of the hunk, keeping its end.
 * @param {Hunk} hunk
 * @param {number} offset
 */
function moveStart(hunk, offset) {
  hunk.sourceStart += offset;
  hunk.targetStart += offset;
  hunk.sourceLength -= offset;
  hunk.targetLength -= offset;
}

/**
 * Splits every hunk whose source is longer than a fuzzy-match pattern into several, each with
 * its own context; a deletion of more than twice that length stays whole.
 * @param {Hunk[]} patches
 * @returns {Hunk[]}
 */
function splitToMaxPatternLength(patches) {
  if (!patches.some((patch) => patch.sourceLength > MAX_PATTERN_LENGTH)) return patches;
  return patches.flatMap((patch) => (patch.sourceLength > MAX_PATTERN_LENGTH ? split(patch, MAX_PATTERN_LENGTH) : [patch]));
}

/** @param {Hunk} hunk @param {number} maxLength @returns {Hunk[]} */
function split(hunk, maxLength) {
  const margin = CONTEXT_MARGIN;
  const edits = hunk.edits;
  /** @type {Hunk[]} */
  const pieces = [];
  let next = 0;
  let taken = 0;
  let sourceStart = hunk.sourceStart;
  let targetStart = hunk.targetStart;
  /** @type {number[]} */
  let precontext = [];

  while (next < edits.length) {
    const piece = emptyHunk();
    let changes = false;
    piece.sourceStart = sourceStart - precontext.length;
    piece.targetStart = targetStart - precontext.length;
    if (precontext.length > 0) {
      piece.sourceLength = precontext.length;
      piece.targetLength = precontext.length;
      piece.edits.push({ op: "=", s: precontext });
    }
    while (next < edits.length && piece.sourceLength < maxLength - margin) {
      const op = edits[next].op;
      const text = edits[next].s.slice(taken);
      if (op === "+") {
        // Insertions cost nothing to match.
        piece.targetLength += text.length;
        targetStart += text.length;
        piece.edits.push({ op: "+", s: text });
        changes = true;
        next += 1;
        taken = 0;
      } else if (op === "-" && piece.edits.length === 1 && piece.edits[0].op === "=" && text.length > 2 * maxLength) {
        // A large deletion goes whole into a piece of its own.
        piece.sourceLength += text.length;
        sourceStart += text.length;
        piece.edits.push({ op: "-", s: text });
        changes = true;
        next += 1;
        taken = 0;
      } else {
        // A deletion or an equality: take as much as fits.
        const chunk = text.slice(0, Math.max(0, maxLength - piece.sourceLength - margin));
        piece.sourceLength += chunk.length;
        sourceStart += chunk.length;
        if (op === "=") {
          piece.targetLength += chunk.length;
          targetStart += chunk.length;
        } else {
          changes = true;
        }
        piece.edits.push({ op, s: chunk });
        taken += chunk.length;
        if (taken === edits[next].s.length) {
          next += 1;
          taken = 0;
        }
      }
    }
    // The end of this piece's target is the next piece's leading context...
    const pieceTarget = targetOf(piece.edits);
    precontext = pieceTarget.slice(Math.max(0, pieceTarget.length - margin));
    // ...and the start of what remains of the source is this piece's trailing context.
    const postcontext = sourcePrefix(edits, margin, next, taken);
    if (postcontext.length > 0) {
      piece.sourceLength += postcontext.length;
      piece.targetLength += postcontext.length;
      const last = piece.edits[piece.edits.length - 1];
      if (last && last.op === "=") piece.edits[piece.edits.length - 1] = { op: "=", s: last.s.concat(postcontext) };
      else piece.edits.push({ op: "=", s: postcontext });
    }
    if (changes) pieces.push(piece);
  }
  return pieces;
}

/** The first `length` source scalars of `edits[start...]`, less `skipped` of the first.
 * @param {Edit[]} edits @param {number} length @param {number} start @param {number} skipped */
function sourcePrefix(edits, length, start, skipped) {
  /** @type {number[]} */
  let prefix = [];
  for (let index = start; index < edits.length; index++) {
    const edit = edits[index];
    if (edit.op === "+") continue;
    prefix = prefix.concat(edit.s.slice(index === start ? skipped : 0).slice(0, length - prefix.length));
    if (prefix.length === length) break;
  }
  return prefix;
}

/**
 * Applies the hunks to `text`, each where its context best matches near its expected place;
 * returns the text and which hunks found a place. A hunk that finds none leaves the text alone.
 * @param {readonly Hunk[]} hunks @param {number[]} text @param {ApplyOptions} [options]
 * @returns {{ text: number[], applied: boolean[] }}
 */
export function applyPatch(hunks, text, options = defaultApplyOptions) {
  if (hunks.length === 0) return { text, applied: [] };
  const matcher = new FuzzyMatcher(options.matchThreshold, options.matchDistance);
  const engine = new TextDiffEngine(options.timeoutMs);
  let patches = hunks.map(copyHunk);
  const padding = addPadding(patches);
  let padded = padding.concat(text, padding);
  patches = splitToMaxPatternLength(patches);

  /** @type {boolean[]} */
  const applied = [];
  // How far the text has moved from where the hunks expect it.
  let drift = 0;
  for (const patch of patches) {
    const expected = patch.targetStart + drift;
    const found = place(patch, padded, expected, matcher);
    if (!found) {
      applied.push(false);
      // Later hunks expect this one's change in length, which did not happen.
      drift -= patch.targetLength - patch.sourceLength;
      continue;
    }
    drift = found[0] - expected;
    const result = applyHunk(patch, padded, found, engine, options.deleteThreshold, options.requiresIntactDeletions);
    applied.push(result !== null);
    if (result) padded = result;
  }
  // The padding values are not scalars, so removing them wherever they are is exact.
  return { text: padded.filter((value) => value <= LARGEST_SCALAR), applied };
}

/**
 * Where the hunk's source best matches `text` near `expected`: [start, end), or null.
 * @param {Hunk} patch @param {number[]} text @param {number} expected @param {FuzzyMatcher} matcher
 * @returns {[number, number] | null}
 */
function place(patch, text, expected, matcher) {
  const source = sourceOf(patch.edits);
  if (source.length <= MAX_PATTERN_LENGTH) {
    const start = matcher.location(source, text, expected);
    return start < 0 ? null : [start, Math.min(text.length, start + source.length)];
  }
  // Too long for one fuzzy match (a large deletion): match both ends.
  const start = matcher.location(source.slice(0, MAX_PATTERN_LENGTH), text, expected);
  if (start < 0) return null;
  const endStart = matcher.location(
    source.slice(source.length - MAX_PATTERN_LENGTH), text, expected + source.length - MAX_PATTERN_LENGTH);
  if (endStart < 0 || !(start < endStart)) return null;
  return [start, Math.min(text.length, endStart + MAX_PATTERN_LENGTH)];
}

/**
 * Applies the hunk to the part of `text` that matched its source; the new text, or null when a
 * large deletion's ends matched but its middle differs too much, or a deletion is not intact.
 * @param {Hunk} patch @param {number[]} text @param {[number, number]} found @param {TextDiffEngine} engine
 * @param {number} deleteThreshold @param {boolean} requiringIntactDeletions
 * @returns {number[] | null}
 */
function applyHunk(patch, text, found, engine, deleteThreshold, requiringIntactDeletions) {
  const [lower, upper] = found;
  const source = sourceOf(patch.edits);
  const matched = text.slice(lower, upper);
  if (sameScalars(matched, source)) return text.slice(0, lower).concat(targetOf(patch.edits), text.slice(upper));

  // An inexact match: map the hunk's changes onto what was found through a diff of the source
  // against the text it matched, as diff-match-patch does.
  const isLargeDeletion = source.length > MAX_PATTERN_LENGTH;
  let alignment = engine.edits(source, matched, false);
  if (isLargeDeletion && levenshteinDistance(alignment) / source.length > deleteThreshold) return null;
  alignment = alignToWordBoundaries(alignment);
  if (requiringIntactDeletions && !deletionsAreIntact(patch, text, lower, alignment)) return null;
  // Map pure source positions and add the shift exactly (unlike diff-match-patch's approximation).
  let result = text;
  let sourceIndex = 0;
  let shift = 0;
  for (const edit of patch.edits) {
    const length = edit.s.length;
    if (edit.op === "=") {
      sourceIndex += length;
    } else if (edit.op === "+") {
      const at = lower + shift + targetIndex(alignment, sourceIndex);
      result = result.slice(0, at).concat(edit.s, result.slice(at));
      shift += length;
    } else {
      const deletedStart = lower + shift + targetIndex(alignment, sourceIndex);
      const deletedEnd = lower + shift + targetIndex(alignment, sourceIndex + length);
      result = result.slice(0, deletedStart).concat(result.slice(deletedEnd));
      shift -= deletedEnd - deletedStart;
      sourceIndex += length;
    }
  }
  return result;
}

/**
 * Whether every run the hunk deletes is found unchanged where the alignment puts it, between
 * the neighbours it had.
 * @param {Hunk} patch @param {number[]} text @param {number} start @param {Edit[]} alignment
 */
function deletionsAreIntact(patch, text, start, alignment) {
  const sourceCount = sourceOf(patch.edits).length;
  let sourceIndex = 0;
  for (const edit of patch.edits) {
    if (edit.op === "+") continue;
    const length = edit.s.length;
    if (edit.op === "-") {
      const from = start + targetIndex(alignment, sourceIndex);
      const to = start + targetIndex(alignment, sourceIndex + length);
      if (!sameScalars(text.slice(from, to), edit.s)) return false;
      if (sourceIndex > 0 && !keeps(alignment, sourceIndex - 1)) return false;
      if (sourceIndex + length < sourceCount && !keeps(alignment, sourceIndex + length)) return false;
    }
    sourceIndex += length;
  }
  return true;
}
