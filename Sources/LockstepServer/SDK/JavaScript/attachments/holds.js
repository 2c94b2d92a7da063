// Keeps members that refer to attachments not uploaded yet from reaching the server (the Swift
// SDK's AttachmentHolds). The server refuses a change that adds a reference to a blob its writer
// has not uploaded whole (424), and no client must receive a reference it cannot fetch: such a
// member is held, the change goes without it, and its edits move to a waiting change of their
// own that goes once the upload completes. The local object keeps the reference throughout.
import { references } from "./reference.js";
import { isPendingUpload, anyPendingUpload, blob, queueUpload } from "./records.js";
import { MemberEdits } from "../replica/member-edits.js";
import { allStamps, setStamps } from "../replica/stamps.js";
import { insertRow, updateRow } from "../replica/outbox-rows.js";
import { dataOf, local } from "../replica/records.js";
import { jsonEqual, member, put } from "../json/value.js";

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
export function heldMembers(tx, object, base) {
  /** @type {Set<string>} */
  const held = new Set();
  if (!anyPendingUpload(tx)) return held;
  for (const name of Object.keys(object)) {
    const value = object[name];
    const before = member(base, name);
    if (before !== undefined && jsonEqual(before, value)) continue;
    if (references(value).some((attachment) => isPendingUpload(tx, attachment.sha256))) held.add(name);
  }
  return held;
}

/**
 * `object` with the `held` members as they are in `base`.
 * @param {Set<string>} held
 * @param {JSONObject} object
 * @param {JSONObject} base
 */
export function withheld(held, object, base) {
  const sendable = { ...object };
  for (const name of held) {
    const value = member(base, name);
    if (value === undefined) delete sendable[name];
    else put(sendable, name, value);
  }
  return sendable;
}

/**
 * Moves the edits of the `held` members of `row`, about to be sent without them, to a new
 * waiting change of the object, with their stamps.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 * @param {Set<string>} held
 * @param {JSONObject} values
 */
export function holdBack(tx, row, held, values) {
  const stamps = allStamps(tx, row.bucket, row.key);
  const edits = new MemberEdits();
  for (const name of held) {
    const value = member(values, name);
    if (value !== undefined) put(edits.assigned, name, value);
    const time = stamps.get(name)?.time ?? row.editTime;
    if (time !== null && time !== undefined) edits.times.set(name, time);
  }
  /** @type {bigint | null} */
  let latest = null;
  for (const time of edits.times.values()) if (latest === null || time > latest) latest = time;
  const waiting = insertRow(tx, {
    bucket: row.bucket, key: row.key, operation: "M", priority: row.priority, editTime: latest ?? row.editTime,
    members: edits.toJSON(), waiting: true,
  });
  for (const name of held) {
    const stamp = stamps.get(name);
    if (stamp) setStamps(tx, row.bucket, row.key, [name], { ...stamp, changeID: waiting.ccid });
  }
}

/**
 * After a 424 (a reference to a blob this user has not uploaded): queues the upload of every
 * blob the object refers to that the device holds, and puts the row back in the queue. false
 * when there is nothing to upload, and the refusal stands.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 */
export function uploadReferences(tx, row) {
  const data = dataOf(local(tx, row.bucket, row.key)) ?? {};
  let queued = false;
  for (const attachment of references(data)) {
    const known = blob(tx, attachment.sha256);
    if (!known?.stored) continue;
    tx.set("blobs", attachment.sha256, { ...known, uploaded: false });
    queued = queueUpload(tx, attachment.sha256, row.priority) || queued;
  }
  if (!queued) return false;
  updateRow(tx, row.id, { status: "queued", error: 424, diff: null, sourceVersion: null, expected: null, fullData: null });
  return true;
}
