// Attaching bytes to an object (the Swift SDK's Replica+Attachments): the bytes are stored on
// the device first (flushed), then one transaction sets the member to a reference, records
// the bytes and queues their upload. A crash between the two leaves at worst bytes nothing
// refers to, never a reference without its bytes.
import { LockstepError } from "../errors.js";
import { put } from "../json/value.js";
import { queueUpload, recordStored } from "./records.js";
import { referenceJSON } from "./reference.js";
import { sha256Of } from "./blob-api.js";
import { dataOf, ghost, local, present, sameState, setLocal } from "../replica/records.js";
import { changeBetween, enqueueEdit } from "../replica/replica.js";

/** @typedef {import("../replica/replica.js").Replica} Replica */
/** @typedef {import("./reference.js").Attachment} Attachment */

/**
 * Stores `bytes`, sets `member` of `key` to refer to them (creating the object if there is
 * none) and queues their upload at `priority`; all durable when it resolves.
 * @param {Replica} replica
 * @param {Blob} bytes
 * @param {string} type
 * @param {string} bucket
 * @param {string} key
 * @param {string} member
 * @param {number} priority
 * @returns {Promise<Attachment>}
 */
export async function attach(replica, bytes, type, bucket, key, member, priority) {
  const sha256 = await sha256Of(bytes);
  /** @type {Attachment} */
  const attachment = { sha256, size: bytes.size, type };
  await replica.store.putBlob(sha256, bytes);
  const now = replica.editTimes();
  const clientID = replica.clientID;
  await replica.writeLocal(bucket, (tx, emit) => {
    recordStored(tx, attachment);
    queueUpload(tx, sha256, priority);
    const old = local(tx, bucket, key);
    if (old.state === "removed" || ghost(tx, bucket, key)?.isDeleted) {
      throw new LockstepError("removed", `${bucket}/${key} was removed, and removed objects never come back`, 410);
    }
    const object = { ...(dataOf(old) ?? {}) };
    put(object, member, referenceJSON(attachment));
    const neu = present(object);
    if (sameState(old, neu)) return;
    setLocal(tx, bucket, key, neu);
    enqueueEdit(tx, bucket, key, dataOf(old) ?? {}, object, 0, now, clientID);
    emit(changeBetween(old, neu, bucket, key, { type: "local" }));
  });
  return attachment;
}
