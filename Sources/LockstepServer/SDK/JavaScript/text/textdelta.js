// Making, applying and merging string deltas: LockstepCore's TextDelta, exactly.
import { scalarsOf, stringOf, sameScalars, utf16Count } from "./scalars.js";
import { commonPrefixLength, commonSuffixLength, hasPrefix, hasSuffix } from "./search.js";
import { TextDiffEngine } from "./engine.js";
import { cleanUpForEfficiency } from "./efficiency.js";
import { deltaOf, editsFromDelta, escapeScalars } from "./delta.js";
import { applyPatch, makePatch, makePatchFromTexts, textMergeOptions } from "./patch.js";

export { applyDelta, TextDeltaError } from "./delta.js";

/** @typedef {import("./edits.js").Edit} Edit */

/**
 * The delta that turns `old` into `neu`: a diff, cleaned up for efficiency when it has more
 * than two edits, as Simperium's jsondiff does. Equal empty strings give "".
 * @param {string} old @param {string} neu
 * @returns {string}
 */
export function makeDelta(old, neu) {
  const a = scalarsOf(old);
  const b = scalarsOf(neu);
  if (sameScalars(a, b)) return deltaOfEdits(new TextDiffEngine(1000).edits(a, b, true));
  const prefix = commonPrefixLength(a, b);
  const suffix = commonSuffixLength(a, b, prefix, a.length, prefix, b.length);
  const oneRun = oneRunDelta(a, b, prefix, suffix);
  if (oneRun !== null) return oneRun;
  return deltaOfEdits(new TextDiffEngine(1000).editsKnowingEnds(a, b, prefix, suffix, true));
}

/** @param {Edit[]} edits */
function deltaOfEdits(edits) {
  return deltaOf(edits.length > 2 ? cleanUpForEfficiency(edits) : edits);
}

/**
 * The delta of an edit that changes one run and keeps the rest, written at once where the
 * engine's answer is known without running it (a run inserted or deleted, one character
 * replaced); null for any other shape. It must be the engine's to the byte.
 * @param {number[]} old @param {number[]} neu @param {number} prefix @param {number} suffix
 * @returns {string | null}
 */
function oneRunDelta(old, neu, prefix, suffix) {
  if (!(old.length - prefix - suffix <= 1 || neu.length - prefix - suffix <= 1)) return null;
  const before = old.slice(0, prefix);
  const after = old.slice(old.length - suffix);
  const deleted = old.slice(prefix, old.length - suffix);
  const inserted = neu.slice(prefix, neu.length - suffix);
  if (deleted.length === 0 || inserted.length === 0) {
    const run = deleted.length === 0 ? inserted : deleted;
    if (before.length > 0 && after.length > 0 && (hasSuffix(run, before) || hasPrefix(run, after))) return null;
  } else {
    const [shorter, longer] = deleted.length <= inserted.length ? [deleted, inserted] : [inserted, deleted];
    if (shorter.length !== 1 || longer.includes(shorter[0])) return null;
  }
  /** @type {string[]} */
  const tokens = [];
  if (before.length > 0) tokens.push("=" + utf16Count(before));
  if (deleted.length > 0) tokens.push("-" + utf16Count(deleted));
  if (inserted.length > 0) tokens.push("+" + escapeScalars(inserted));
  if (after.length > 0) tokens.push("=" + utf16Count(after));
  return tokens.join("\t");
}

/**
 * Carries the edit that took `base` to `edited` over to `current`, as the server merges
 * concurrent text edits: each patch lands where its context best matches, and one that deletes
 * only if what it deletes is intact there. null when a patch finds no place (a conflict).
 * @param {string} base @param {string} edited @param {string} current
 * @returns {string | null}
 */
export function mergeText(base, edited, current) {
  const { text, applied } = applyPatch(makePatchFromTexts(base, edited), scalarsOf(current), textMergeOptions);
  return applied.every(Boolean) ? stringOf(text) : null;
}

/**
 * Rebases text delta `mine`, made against `base`, onto `theirText` (which concurrent edits made
 * of `base`): the delta to apply to `theirText`, "" as `{ rebased: null }` when nothing is left,
 * or `{ conflict: true }` when a patch finds no place.
 * @param {string} mine @param {string} theirText @param {string} base
 * @returns {{ rebased: string | null } | { conflict: true }}
 */
export function rebaseDelta(mine, theirText, base) {
  const baseScalars = scalarsOf(base);
  const patches = makePatch(baseScalars, editsFromDelta(mine, baseScalars));
  const theirs = scalarsOf(theirText);
  const { text, applied } = applyPatch(patches, theirs, textMergeOptions);
  if (!applied.every(Boolean)) return { conflict: true };
  return { rebased: sameScalars(text, theirs) ? null : makeDelta(theirText, stringOf(text)) };
}
