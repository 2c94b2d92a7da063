// The outbox's rows (the Swift SDK's OutboxRow): a local change is `queued` until the sync
// takes it; then its payload (diff or whole object, source version) is frozen and it is
// `sent`, and goes again unchanged, with the same ccid, until the server answers. `accepted`
// means the server's HTTP answer said it applied the change and the feed will bring the
// acknowledgement; `rejected` rows stay for the app to see.
import { MemberEdits } from "./member-edits.js";
import { ghost, local, dataOf } from "./records.js";
import { setStamps } from "./stamps.js";

/** @typedef {import("../store/tables.js").Transaction} Transaction */
/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("../diff/operations.js").ObjectDiff} ObjectDiff */
/** @typedef {"queued" | "sent" | "accepted" | "rejected"} Status */
/**
 * @typedef {object} OutboxRow
 * @property {number} id Its place in the outbox; later changes have larger ids.
 * @property {string} bucket
 * @property {string} key
 * @property {string} ccid The client change id: the same on every resend.
 * @property {"M" | "-"} operation Modify, or remove for good.
 * @property {number} priority -1 low, 0 normal, 1 urgent.
 * @property {Status} status
 * @property {number | null} sourceVersion
 * @property {ObjectDiff | null} diff
 * @property {JSONObject | null} fullData The whole object, sent after a 405 or 440.
 * @property {JSONObject | null} expected The local object as it was sent (rebased as remote changes arrive).
 * @property {bigint | null} editTime
 * @property {number | null} error
 * @property {string | null} message
 * @property {number} createdAt Milliseconds since the epoch, on this device's clock.
 * @property {import("./member-edits.js").MemberEditsJSON | null} members What its edits set and unset.
 * @property {boolean} waiting Holds members waiting for attachments to upload.
 */

/** @param {number} id */
export const rowKey = (id) => String(id).padStart(16, "0");

/**
 * A random client change id (or key): 32 lowercase hexadecimal digits.
 * @returns {string}
 */
export function newChangeID() {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Every row, oldest first, for which `wanted` holds.
 * @param {Transaction} tx
 * @param {(row: OutboxRow) => boolean} wanted
 * @returns {OutboxRow[]}
 */
export function rowsWhere(tx, wanted) {
  /** @type {OutboxRow[]} */
  const rows = [];
  for (const [, row] of tx.rows("outbox")) if (wanted(row)) rows.push(row);
  return rows.sort((a, b) => a.id - b.id);
}

/**
 * The object's rows that are not rejected, oldest first.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 */
export const rowsOf = (tx, bucket, key) =>
  rowsWhere(tx, (row) => row.bucket === bucket && row.key === key && row.status !== "rejected");

/**
 * The row (not rejected) of one of these change ids.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string[]} changeIDs
 * @returns {OutboxRow | undefined}
 */
export function withChangeID(tx, bucket, changeIDs) {
  for (const changeID of changeIDs) {
    for (const [, row] of tx.rows("outbox")) {
      if (row.bucket === bucket && row.ccid === changeID && row.status !== "rejected") return row;
    }
  }
  return undefined;
}

/**
 * @param {Transaction} tx
 * @param {OutboxRow} row
 */
export const saveRow = (tx, row) => tx.set("outbox", rowKey(row.id), row);

/**
 * @param {Transaction} tx
 * @param {number} id
 */
export const deleteRow = (tx, id) => tx.delete("outbox", rowKey(id));

/**
 * Deletes the object's rows that are not rejected.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 */
export function deleteAll(tx, bucket, key) {
  for (const row of rowsOf(tx, bucket, key)) deleteRow(tx, row.id);
}

/**
 * Changes fields of a row.
 * @param {Transaction} tx
 * @param {number} id
 * @param {Partial<OutboxRow>} fields
 */
export function updateRow(tx, id, fields) {
  const row = tx.get("outbox", rowKey(id));
  if (row) saveRow(tx, { ...row, ...fields });
}

/**
 * The next row id (never one used before).
 * @param {Transaction} tx
 */
function nextID(tx) {
  const id = (tx.get("meta", "outbox-next-id") ?? 1);
  tx.set("meta", "outbox-next-id", id + 1);
  return id;
}

/**
 * A new queued row.
 * @param {Transaction} tx
 * @param {Partial<OutboxRow> & { bucket: string, key: string, operation: "M" | "-", priority: number }} fields
 * @returns {OutboxRow}
 */
export function insertRow(tx, fields) {
  /** @type {OutboxRow} */
  const row = {
    id: nextID(tx), ccid: newChangeID(), status: "queued", sourceVersion: null, diff: null, fullData: null, expected: null,
    editTime: null, error: null, message: null, createdAt: Date.now(), members: null, waiting: false, ...fields,
  };
  saveRow(tx, row);
  return row;
}

/**
 * Adds an edit to the object's queued change, or queues a new one: unsent edits to one object
 * coalesce, keeping the highest priority and the latest edit time, while every member of the
 * change keeps the time it was written at (an edit of other members later queues a change of
 * its own); edits of an object the server has not seen always coalesce, and a removal takes
 * every queued edit with it. The edited members are stamped with the change.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {"M" | "-"} operation
 * @param {number} priority
 * @param {bigint | null} time
 * @param {MemberEdits} edits
 * @param {string} clientID
 */
export function enqueue(tx, bucket, key, operation, priority, time, edits, clientID) {
  const queued = rowsOf(tx, bucket, key).filter((row) => row.status === "queued");
  if (operation === "-") for (const row of queued.slice(0, -1)) deleteRow(tx, row.id);
  const latest = queued[queued.length - 1];
  const earlier = latest?.members ? MemberEdits.fromJSON(latest.members) : new MemberEdits();
  const keepsTimes = Array.from(earlier.members).filter((name) => !edits.members.has(name))
    .every((name) => earlier.times.get(name) === (time ?? undefined));
  let changeID;
  if (latest && (operation === "-" || keepsTimes || ghost(tx, bucket, key) === undefined)) {
    saveRow(tx, {
      ...latest, operation, priority: Math.max(priority, latest.priority), editTime: time ?? latest.editTime,
      members: earlier.followedBy(edits).toJSON(), waiting: false,
    });
    changeID = latest.ccid;
  } else {
    changeID = insertRow(tx, { bucket, key, operation, priority, editTime: time, members: edits.toJSON() }).ccid;
  }
  for (const name of edits.members) {
    setStamps(tx, bucket, key, [name], { time: edits.times.get(name) ?? time, clientID, changeID });
  }
}

/**
 * The change as the server reads it (`c:{…}` on the socket, an element of `POST /changes`).
 * @param {OutboxRow} row
 * @returns {Record<string, unknown>}
 */
export function wireChange(row) {
  /** @type {Record<string, unknown>} */
  const fields = { id: row.key, ccid: row.ccid, o: row.operation };
  if (row.operation === "M") {
    if (row.sourceVersion !== null) fields.sv = row.sourceVersion;
    if (row.fullData) fields.d = row.fullData;
    else fields.v = row.diff ?? {};
  }
  if (row.editTime !== null) fields.t = row.editTime;
  return fields;
}

/**
 * What this change sets and unsets; for a row without them, the difference between the ghost
 * and what the change was made to.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 */
export function memberEditsOf(tx, row) {
  if (row.members) return MemberEdits.fromJSON(row.members);
  const base = ghost(tx, row.bucket, row.key)?.data ?? {};
  return MemberEdits.between(base, row.expected ?? dataOf(local(tx, row.bucket, row.key)) ?? base);
}
