// The jsondiff of Simperium and LockstepCore, for apps that want diffs of their own: make one,
// apply it, rebase it over a concurrent one. The same bytes as LockstepCore makes.
import { makeObjectDiff } from "./diff/make.js";
import { applyObjectDiff } from "./diff/apply.js";
import { transformObjectDiff } from "./diff/transform.js";
import { readObjectDiff } from "./diff/operations.js";
import { readSchema } from "./diff/schema.js";

export { DiffError } from "./diff/errors.js";
export { makeDelta, applyDelta, mergeText, TextDeltaError } from "./text/textdelta.js";
export { serialize } from "./json/serialize.js";
export { conflictWinner } from "./diff/winner.js";

/** @typedef {import("./json/value.js").JSONObject} JSONObject */
/** @typedef {import("./diff/operations.js").ObjectDiff} ObjectDiff */

/**
 * The jsondiff that turns `before` into `after`: only `+ - r O d` (every client applies them),
 * unless `schema` asks for `I`, `L` or `dL` (`{"count": {"otype": "integer"}}`).
 *
 * ```js
 * diff({ title: "Hello world" }, { title: "Hello kansas" })   // { title: { o: "d", v: "=6\t-5\t+kansas" } }
 * ```
 * @param {JSONObject} before
 * @param {JSONObject} after
 * @param {unknown} [schema]
 * @returns {ObjectDiff}
 */
export function diff(before, after, schema) {
  return makeObjectDiff(before, after, schema === undefined ? undefined : readSchema(schema));
}

/**
 * The object `diff` (its JSON, checked first) turns `object` into. Throws a DiffError naming
 * the path of the first operation that does not fit; `object` is not changed.
 * @param {JSONObject} object
 * @param {unknown} diff
 * @returns {JSONObject}
 */
export function patch(object, diff) {
  return applyObjectDiff(readObjectDiff(diff), object);
}

/**
 * Diff `mine` rebased over `theirs` (both made against `base`, `theirs` applied already), so
 * that it applies after it. Where they collide, `winner` keeps its value: "incoming" (`mine`,
 * as a Simperium server decides) or "applied" (`theirs`).
 * @param {unknown} mine
 * @param {unknown} theirs
 * @param {JSONObject} base
 * @param {"incoming" | "applied"} [winner]
 * @returns {ObjectDiff}
 */
export function transform(mine, theirs, base, winner = "incoming") {
  return transformObjectDiff(readObjectDiff(mine), readObjectDiff(theirs), base, winner);
}
