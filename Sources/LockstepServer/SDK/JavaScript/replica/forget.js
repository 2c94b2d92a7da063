// Forgetting a bucket of a space this user lost (the Swift SDK's Replica+LostSpaces): its
// objects, ghosts, stamps and cursor go, and it is no longer synced; nothing the user changed
// goes silently: every change the server had not acknowledged stays in the outbox as rejected,
// code 403 with the reason.
import { splitObjectKey } from "../store/tables.js";
import { rowsWhere, saveRow, deleteRow } from "./outbox-rows.js";
import { spaceOfBucket } from "../spaces/names.js";

/** @typedef {import("./replica.js").Replica} Replica */
/** @typedef {{ space: string, bucket: string, reason: string }} SpaceLoss */

/**
 * Forgets `bucket`; resolves the loss to report (null for a bucket of no space).
 * @param {Replica} replica
 * @param {string} bucket
 * @param {string} reason
 * @returns {Promise<SpaceLoss | null>}
 */
export async function forgetBucket(replica, bucket, reason) {
  await replica.write((tx, emit) => {
    for (const row of rowsWhere(tx, (row) => row.bucket === bucket)) {
      if (row.status === "queued" || row.status === "sent") saveRow(tx, { ...row, status: "rejected", error: 403, message: reason });
      else if (row.status === "accepted") deleteRow(tx, row.id);
    }
    for (const table of /** @type {const} */ (["objects", "ghosts", "stamps"])) {
      for (const [rowKey, row] of Array.from(tx.rows(table))) {
        const [rowBucket, key] = splitObjectKey(rowKey);
        if (rowBucket !== bucket) continue;
        if (table === "objects" && !row.deleted) {
          emit({ kind: "deleted", bucket, key, object: null, origin: { type: "revoked", message: reason } });
        }
        tx.delete(table, rowKey);
      }
    }
    tx.delete("buckets", bucket);
  });
  const space = spaceOfBucket(bucket);
  return space === null ? null : { space, bucket, reason };
}
