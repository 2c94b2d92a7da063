/** @typedef {import("../json/value.js").JSONValue} JSONValue */
/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("./operations.js").Operation} Operation */
/** @typedef {import("./operations.js").ObjectDiff} ObjectDiff */
/** @typedef {import("./operations.js").ListDiff} ListDiff */
/** @typedef {import("./errors.js").DiffPath} DiffPath */
/**
 * Which of two concurrent edits keeps its effect where both cannot: "incoming" (the diff being
 * transformed) or "applied" (the one already applied).
 * @typedef {"incoming" | "applied"} ConflictWinner
 */
/**
 * `diff` rebased over `applied`, both made against `base`, so that it applies after `applied`.
 * Whenever the winner is decided the same way from both sides, both orders converge.
 * @param {ObjectDiff} diff @param {ObjectDiff} applied @param {JSONObject} base
 * @param {ConflictWinner} winner @param {DiffPath} [path]
 * @returns {ObjectDiff}
 */
export function transformObjectDiff(diff: ObjectDiff, applied: ObjectDiff, base: JSONObject, winner: ConflictWinner, path?: import("./errors.js").DiffPath | undefined): ObjectDiff;
export type JSONValue = import("../json/value.js").JSONValue;
export type JSONObject = import("../json/value.js").JSONObject;
export type Operation = import("./operations.js").Operation;
export type ObjectDiff = import("./operations.js").ObjectDiff;
export type ListDiff = import("./operations.js").ListDiff;
export type DiffPath = import("./errors.js").DiffPath;
/**
 * Which of two concurrent edits keeps its effect where both cannot: "incoming" (the diff being
 * transformed) or "applied" (the one already applied).
 */
export type ConflictWinner = "incoming" | "applied";
