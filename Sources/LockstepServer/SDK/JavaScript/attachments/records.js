// Reads and writes the rows behind attachments (`blobs`) and the upload queue (`uploads`),
// inside a transaction the caller holds (the Swift SDK's AttachmentRecords).
import { references } from "./reference.js";
import { MemberEdits } from "../replica/member-edits.js";
import { objectKey } from "../store/tables.js";
import { rowsWhere, updateRow } from "../replica/outbox-rows.js";

/** @typedef {import("../store/tables.js").Transaction} Transaction */
/** @typedef {import("./reference.js").Attachment} Attachment */
/**
 * An attachment this device knows.
 * @typedef {object} BlobRow
 * @property {string} sha256
 * @property {number} size
 * @property {string} type
 * @property {boolean} stored Its bytes are in the local store.
 * @property {number} lastUsed Orders the cache's evictions.
 * @property {boolean} uploaded This user's upload of it completed.
 */
/**
 * One upload of the queue.
 * @typedef {object} UploadRow
 * @property {string} sha256
 * @property {number} priority
 * @property {number} seq Its place in the queue.
 * @property {string | null} location The server's URL for it, once created.
 * @property {number} acknowledged The bytes the server confirmed.
 * @property {number} restarts How often the server discarded it (a hash mismatch).
 * @property {{ code: string, message: string } | null} error Why it stopped for good.
 */

/**
 * Notes that the bytes of `attachment` are in the local store, just used.
 * @param {Transaction} tx
 * @param {Attachment} attachment
 */
export function recordStored(tx, attachment) {
  /** @type {BlobRow | undefined} */
  const existing = tx.get("blobs", attachment.sha256);
  tx.set("blobs", attachment.sha256, {
    sha256: attachment.sha256, size: existing?.size ?? attachment.size, type: existing?.type ?? attachment.type,
    stored: true, lastUsed: Date.now(), uploaded: existing?.uploaded ?? false,
  });
}

/**
 * @param {Transaction} tx
 * @param {string} sha256
 * @returns {BlobRow | undefined}
 */
export const blob = (tx, sha256) => tx.get("blobs", sha256);

/**
 * Puts `sha256` in the upload queue at `priority` (raising the priority of one queued, retrying
 * one that failed), unless this user uploaded it before. Returns whether it is queued now.
 * @param {Transaction} tx
 * @param {string} sha256
 * @param {number} priority
 */
export function queueUpload(tx, sha256, priority) {
  if (blob(tx, sha256)?.uploaded) return false;
  /** @type {UploadRow | undefined} */
  const existing = tx.get("uploads", sha256);
  if (existing) {
    tx.set("uploads", sha256, { ...existing, priority: Math.max(existing.priority, priority), error: null });
  } else {
    const seq = (tx.get("meta", "upload-next-seq") ?? 1);
    tx.set("meta", "upload-next-seq", seq + 1);
    tx.set("uploads", sha256, { sha256, priority, seq, location: null, acknowledged: 0, restarts: 0, error: null });
  }
  return true;
}

/**
 * Whether the upload of `sha256` has not completed: a member that refers to it is held back.
 * @param {Transaction} tx
 * @param {string} sha256
 */
export const isPendingUpload = (tx, sha256) => tx.get("uploads", sha256) !== undefined;

/** @param {Transaction} tx */
export function anyPendingUpload(tx) {
  for (const _ of tx.rows("uploads")) return true;
  return false;
}

/**
 * The queue, highest priority first, then oldest.
 * @param {Transaction} tx
 * @returns {UploadRow[]}
 */
export function uploads(tx) {
  return Array.from(tx.rows("uploads"), ([, row]) => row).sort((a, b) => b.priority - a.priority || a.seq - b.seq);
}

/**
 * The upload to run next, among those not stopped.
 * @param {Transaction} tx
 * @returns {UploadRow | undefined}
 */
export const nextUpload = (tx) => uploads(tx).find((row) => row.error === null);

/**
 * Whether a data change at `priority` or above waits in the outbox: an upload at `priority`
 * does not start, or go on, while one does.
 * @param {Transaction} tx
 * @param {number} priority
 */
export function dataChangesWaiting(tx, priority) {
  for (const [, row] of tx.rows("outbox")) {
    if (row.status !== "rejected" && !row.waiting && row.priority >= priority) return true;
  }
  return false;
}

/**
 * @param {Transaction} tx
 * @param {string} sha256
 * @param {Partial<UploadRow>} fields
 */
export function updateUpload(tx, sha256, fields) {
  const row = tx.get("uploads", sha256);
  if (row) tx.set("uploads", sha256, { ...row, ...fields });
}

/**
 * The server holds the whole blob for this user: it leaves the queue, and the changes held back
 * for it may go.
 * @param {Transaction} tx
 * @param {string} sha256
 */
export function completeUpload(tx, sha256) {
  tx.delete("uploads", sha256);
  const row = blob(tx, sha256);
  if (row) tx.set("blobs", sha256, { ...row, uploaded: true });
  for (const waiting of rowsWhere(tx, (outbox) => outbox.waiting)) {
    const edits = waiting.members ? MemberEdits.fromJSON(waiting.members) : new MemberEdits();
    const localRow = tx.get("objects", objectKey(waiting.bucket, waiting.key));
    const referred = references(edits.assigned).concat(references(localRow?.data ?? {}));
    if (referred.some((attachment) => attachment.sha256 === sha256)) updateRow(tx, waiting.id, { waiting: false });
  }
}

/**
 * Bytes of attachments in the local store.
 * @param {Transaction} tx
 */
function storedBytes(tx) {
  let total = 0;
  for (const [, row] of tx.rows("blobs")) if (row.stored) total += row.size;
  return total;
}

/**
 * Marks the least recently used attachments gone until the rest fit in `limit` bytes, and
 * returns them, for their bytes to be deleted once this commits. Never one waiting to upload
 * (the only copy), nor `keeping` (just asked for).
 * @param {Transaction} tx
 * @param {number} limit
 * @param {string | null} keeping
 * @returns {string[]}
 */
export function evict(tx, limit, keeping) {
  let total = storedBytes(tx);
  if (total <= limit) return [];
  /** @type {BlobRow[]} */
  const candidates = Array.from(tx.rows("blobs"), ([, row]) => row)
    .filter((row) => row.stored && row.sha256 !== keeping && !isPendingUpload(tx, row.sha256))
    .sort((a, b) => a.lastUsed - b.lastUsed);
  /** @type {string[]} */
  const evicted = [];
  for (const row of candidates) {
    if (total <= limit) break;
    evicted.push(row.sha256);
    total -= row.size;
    tx.set("blobs", row.sha256, { ...row, stored: false });
  }
  return evicted;
}
