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
export function diff(before: JSONObject, after: JSONObject, schema?: unknown): ObjectDiff;
/**
 * The object `diff` (its JSON, checked first) turns `object` into. Throws a DiffError naming
 * the path of the first operation that does not fit; `object` is not changed.
 * @param {JSONObject} object
 * @param {unknown} diff
 * @returns {JSONObject}
 */
export function patch(object: JSONObject, diff: unknown): JSONObject;
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
export function transform(mine: unknown, theirs: unknown, base: JSONObject, winner?: "applied" | "incoming" | undefined): ObjectDiff;
export { DiffError } from "./diff/errors.js";
export { serialize } from "./json/serialize.js";
export { conflictWinner } from "./diff/winner.js";
export type JSONObject = import("./json/value.js").JSONObject;
export type ObjectDiff = import("./diff/operations.js").ObjectDiff;
export { makeDelta, applyDelta, mergeText, TextDeltaError } from "./text/textdelta.js";
