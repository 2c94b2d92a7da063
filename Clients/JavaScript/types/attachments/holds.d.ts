/** @typedef {import("../store/tables.js").Transaction} Transaction */
/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("../replica/outbox-rows.js").OutboxRow} OutboxRow */
/**
 * The members of `object` that differ from `base` and refer to a blob whose upload has not completed.
 * @param {Transaction} tx
 * @param {JSONObject} object
 * @param {JSONObject} base
 * @returns {Set<string>}
 */
export function heldMembers(tx: Transaction, object: JSONObject, base: JSONObject): Set<string>;
/**
 * `object` with the `held` members as they are in `base`.
 * @param {Set<string>} held
 * @param {JSONObject} object
 * @param {JSONObject} base
 */
export function withheld(held: Set<string>, object: JSONObject, base: JSONObject): {
    [x: string]: import("../json/value.js").JSONValue;
};
/**
 * Moves the edits of the `held` members of `row`, about to be sent without them, to a new
 * waiting change of the object, with their stamps.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 * @param {Set<string>} held
 * @param {JSONObject} values
 */
export function holdBack(tx: Transaction, row: OutboxRow, held: Set<string>, values: JSONObject): void;
/**
 * After a 424 (a reference to a blob this user has not uploaded): queues the upload of every
 * blob the object refers to that the device holds, and puts the row back in the queue. false
 * when there is nothing to upload, and the refusal stands.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 */
export function uploadReferences(tx: Transaction, row: OutboxRow): boolean;
export type Transaction = import("../store/tables.js").Transaction;
export type JSONObject = import("../json/value.js").JSONObject;
export type OutboxRow = import("../replica/outbox-rows.js").OutboxRow;
