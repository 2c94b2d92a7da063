/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("../diff/operations.js").ObjectDiff} ObjectDiff */
/** @typedef {import("../diff/transform.js").ConflictWinner} ConflictWinner */
/**
 * `state`, made from `base`, moved onto `newBase` = `base` + `remote`. `remoteWins` are the
 * members where a collision goes to the remote change; elsewhere `winner` decides.
 * @param {JSONObject} state
 * @param {JSONObject} base
 * @param {ObjectDiff} remote
 * @param {JSONObject} newBase
 * @param {ConflictWinner} winner
 * @param {Set<string>} [remoteWins]
 * @returns {JSONObject}
 */
export function rebaseState(state: JSONObject, base: JSONObject, remote: ObjectDiff, newBase: JSONObject, winner: ConflictWinner, remoteWins?: Set<string> | undefined): JSONObject;
/**
 * The edits made after `appliedState` (what the local object was when an applied change was
 * made) put on top of the server's version `serverData`.
 * @param {JSONObject} local
 * @param {JSONObject} appliedState
 * @param {JSONObject} serverData
 */
export function replay(local: JSONObject, appliedState: JSONObject, serverData: JSONObject): import("../json/value.js").JSONObject;
export type JSONObject = import("../json/value.js").JSONObject;
export type ObjectDiff = import("../diff/operations.js").ObjectDiff;
export type ConflictWinner = import("../diff/transform.js").ConflictWinner;
