// A change as the server sends it (`c:[…]` on the socket, `GET /changes`, `POST /changes`): an
// accepted change `{clientid,id,o,v,sv?,ev,cv,ccids,t?}` or an error `{clientid,id,ccids,error}`.
import { LockstepError } from "../errors.js";
import { readObjectDiff } from "../diff/operations.js";
import { isJSONObject } from "../json/value.js";
import { exactTimes } from "./exact-times.js";

/** @typedef {import("../diff/operations.js").ObjectDiff} ObjectDiff */
/**
 * @typedef {object} RemoteChange
 * @property {string} key
 * @property {string} clientID
 * @property {string[]} changeIDs
 * @property {"M" | "-"} operation
 * @property {ObjectDiff} diff
 * @property {number | null} sourceVersion
 * @property {number} endVersion
 * @property {string | null} cursor
 * @property {bigint | null} editTime
 * @property {number | null} error
 * @property {string | null} message
 */

/**
 * Reads the changes of a JSON array of them, their edit times exact.
 * @param {string} text
 * @returns {RemoteChange[]}
 */
export function readChanges(text) {
  let list;
  try {
    list = JSON.parse(text);
  } catch (error) {
    throw new LockstepError("protocol", `a list of changes that is not JSON: ${/** @type {Error} */ (error).message}`);
  }
  if (!Array.isArray(list)) throw new LockstepError("protocol", "expected a list of changes");
  const times = text.includes('"t"') ? exactTimes(text) : [];
  return list.map((json, index) => readChange(json, times[index] ?? null));
}

/**
 * @param {unknown} json
 * @param {bigint | null} exactTime
 * @returns {RemoteChange}
 */
function readChange(json, exactTime = null) {
  if (!isJSONObject(json) || typeof json.id !== "string") throw new LockstepError("protocol", `a change without an id: ${JSON.stringify(json)}`);
  const error = typeof json.error === "number" ? json.error : null;
  const operation = json.o === "-" ? "-" : "M";
  /** @type {ObjectDiff} */
  let diff = {};
  if (error === null && operation === "M" && json.v !== undefined) {
    try {
      diff = readObjectDiff(json.v);
    } catch (problem) {
      throw new LockstepError("protocol", `a change with a malformed diff: ${/** @type {Error} */ (problem).message}`);
    }
  }
  const sv = typeof json.sv === "number" ? json.sv : typeof json.sv === "string" && /^[0-9]+$/.test(json.sv) ? Number(json.sv) : null;
  let editTime = exactTime;
  if (editTime === null && typeof json.t === "number" && Number.isInteger(json.t)) editTime = BigInt(json.t);
  return {
    key: json.id,
    clientID: typeof json.clientid === "string" ? json.clientid : "",
    changeIDs: Array.isArray(json.ccids) ? /** @type {string[]} */ (json.ccids.filter((id) => typeof id === "string")) : [],
    operation,
    diff,
    sourceVersion: sv,
    endVersion: typeof json.ev === "number" ? json.ev : 0,
    cursor: typeof json.cv === "string" ? json.cv : null,
    editTime,
    error,
    message: typeof json.message === "string" ? json.message : null,
  };
}
