// Reads and writes the rows behind objects, ghosts and bucket cursors, inside a transaction the
// caller holds (the Swift SDK's LocalRecords).
import { objectKey } from "../store/tables.js";
import { jsonEqual } from "../json/value.js";

/** @typedef {import("../store/tables.js").Transaction} Transaction */
/** @typedef {import("../json/value.js").JSONObject} JSONObject */

/**
 * What the app sees of one object: nothing yet, its data, or a tombstone.
 * @typedef {{ state: "absent" } | { state: "present", data: JSONObject } | { state: "removed" }} LocalState
 */
/**
 * The last version of an object the server acknowledged.
 * @typedef {object} Ghost
 * @property {number} version
 * @property {JSONObject} data
 * @property {boolean} isDeleted
 */
/**
 * A bucket this store syncs, and where its sync stands.
 * @typedef {object} BucketRow
 * @property {string | null} cv The cursor to resume the change feed from.
 * @property {string | null} walkCurrent The snapshot of an index walk under way.
 * @property {string | null} walkMark Where the walk goes on.
 * @property {number} walkId Counts walks, to tell which objects the last one saw.
 * @property {string | null} options The bucket's options as the server sent them.
 */

/** @type {LocalState} */
export const absent = Object.freeze({ state: "absent" });
/** @type {LocalState} */
export const removed = Object.freeze({ state: "removed" });

/**
 * @param {JSONObject} data
 * @returns {LocalState}
 */
export const present = (data) => ({ state: "present", data });

/**
 * The data of a state, if it has some.
 * @param {LocalState} state
 */
export const dataOf = (state) => (state.state === "present" ? state.data : undefined);

/**
 * @param {LocalState} a
 * @param {LocalState} b
 */
export function sameState(a, b) {
  if (a.state !== b.state) return false;
  return a.state !== "present" || jsonEqual(a.data, /** @type {{ data: JSONObject }} */ (b).data);
}

/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @returns {LocalState}
 */
export function local(tx, bucket, key) {
  const row = tx.get("objects", objectKey(bucket, key));
  if (!row) return absent;
  if (row.deleted) return removed;
  return present(row.data);
}

/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {LocalState} state
 */
export function setLocal(tx, bucket, key, state) {
  const id = objectKey(bucket, key);
  if (state.state === "absent") tx.delete("objects", id);
  else if (state.state === "present") tx.set("objects", id, { data: state.data, deleted: false });
  else tx.set("objects", id, { data: null, deleted: true });
}

/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @returns {Ghost | undefined}
 */
export function ghost(tx, bucket, key) {
  const row = tx.get("ghosts", objectKey(bucket, key));
  return row ? { version: row.version, data: row.data ?? {}, isDeleted: row.deleted } : undefined;
}

/**
 * Writes a ghost. `walk` is the index walk that saw this version; one from the change feed is
 * marked -1 (seen live), which keeps it through the walk under way.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {Ghost} ghost
 * @param {number} [walk]
 */
export function setGhost(tx, bucket, key, ghost, walk = -1) {
  tx.set("ghosts", objectKey(bucket, key), {
    version: ghost.version, data: ghost.isDeleted ? null : ghost.data, deleted: ghost.isDeleted, walk,
  });
}

/**
 * The local state that follows from the ghost when nothing is pending.
 * @param {Ghost | undefined} ghost
 * @returns {LocalState}
 */
export function stateOf(ghost) {
  if (!ghost) return absent;
  return ghost.isDeleted ? removed : present(ghost.data);
}

/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @returns {BucketRow | undefined}
 */
export const bucketRow = (tx, bucket) => tx.get("buckets", bucket);

/**
 * Changes a bucket's row, if the bucket is synced.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {Partial<BucketRow>} fields
 */
export function updateBucket(tx, bucket, fields) {
  const row = bucketRow(tx, bucket);
  if (row) tx.set("buckets", bucket, { ...row, ...fields });
}
