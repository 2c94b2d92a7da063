// The local changes on their way to the server, as the app sees them: look at them, cancel
// those not sent yet, dismiss the refused ones once shown (the Swift SDK's Outbox).
import { LockstepError } from "./errors.js";
import { deleteRow, rowsOf, rowsWhere } from "./replica/outbox-rows.js";
import { ghost, present, removed, stateOf, local } from "./replica/records.js";
import { replaceLocal } from "./replica/replica.js";

/** @typedef {import("./replica/replica.js").Replica} Replica */
/** @typedef {import("./replica/outbox-rows.js").OutboxRow} OutboxRow */
/**
 * One local change in the outbox.
 * @typedef {object} OutboxChange
 * @property {number} id Its place in the outbox; later changes have larger ids.
 * @property {string} bucket
 * @property {string} key
 * @property {string} changeID The client change id (ccid), the same on every resend.
 * @property {"modify" | "remove"} operation
 * @property {"low" | "normal" | "urgent"} priority
 * @property {"queued" | "sent" | "rejected"} status Queued (can still be cancelled), sent, or refused.
 * @property {number | null} code The server's code for a refusal (410 removed, 413 too large…).
 * @property {string | null} message The server's reason for a refusal.
 * @property {bigint | null} editTime When the edit was made, in nanoseconds on the server's clock.
 * @property {Date} createdAt When it entered the outbox, on this device's clock.
 */

/** @type {Record<number, "low" | "normal" | "urgent">} */
const priorityNames = { [-1]: "low", 0: "normal", 1: "urgent" };

/**
 * @param {OutboxRow} row
 * @returns {OutboxChange}
 */
function publicChange(row) {
  return {
    id: row.id, bucket: row.bucket, key: row.key, changeID: row.ccid, operation: row.operation === "-" ? "remove" : "modify",
    priority: priorityNames[row.priority] ?? "normal",
    status: row.status === "rejected" ? "rejected" : row.status === "queued" ? "queued" : "sent",
    code: row.status === "rejected" ? row.error : null, message: row.status === "rejected" ? row.message : null,
    editTime: row.editTime, createdAt: new Date(row.createdAt),
  };
}

export class Outbox {
  /** @param {Replica} replica */
  constructor(replica) {
    this.replica = replica;
  }

  /** Changes not yet acknowledged (queued or sent), oldest first. */
  get pending() {
    return this.replica.read((tx) => rowsWhere(tx, (row) => row.status !== "rejected")).map(publicChange);
  }

  /** Changes the server refused, oldest first; their objects were rolled back already. */
  get rejected() {
    return this.replica.read((tx) => rowsWhere(tx, (row) => row.status === "rejected")).map(publicChange);
  }

  /**
   * Cancels a change not sent yet: the object goes back to what the server last acknowledged
   * plus the change in flight, if any. Rejects with "already-sent" when it is on its way.
   * @param {OutboxChange} change
   */
  cancel(change) {
    return this.replica.write((tx, emit) => {
      const row = rowsWhere(tx, (candidate) => candidate.ccid === change.changeID)[0];
      if (!row) return;
      if (row.status !== "queued") throw new LockstepError("already-sent", `change ${change.changeID} was already sent and cannot be cancelled`);
      deleteRow(tx, row.id);
      const inFlight = rowsOf(tx, row.bucket, row.key)[0];
      let restored = stateOf(ghost(tx, row.bucket, row.key));
      if (inFlight) restored = inFlight.operation === "-" ? removed : inFlight.expected ? present(inFlight.expected) : restored;
      emit(replaceLocal(tx, row.bucket, row.key, local(tx, row.bucket, row.key), restored, { type: "local" }));
    });
  }

  /** Forgets the refused changes once the app has shown them; changes no object. */
  dismissRejected() {
    return this.replica.write((tx) => {
      for (const row of rowsWhere(tx, (candidate) => candidate.status === "rejected")) deleteRow(tx, row.id);
    });
  }
}
