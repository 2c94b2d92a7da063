// Taking in what the server sent (the Swift SDK's Replica+Remote): acknowledgements of our
// changes, other devices' changes, and refusals of ours, a batch in one transaction (one flush
// for a run of changes; a crash keeps all or none, each cursor moving with its changes).
import { applyObjectDiff } from "../diff/apply.js";
import { setsWholeValue } from "../diff/operations.js";
import { conflictWinner } from "../diff/winner.js";
import { jsonEqual, member, put } from "../json/value.js";
import { MemberEdits } from "./member-edits.js";
import { allStamps, raiseStamps } from "./stamps.js";
import { ghost, local, present, removed, sameState, setGhost, stateOf, updateBucket } from "./records.js";
import { deleteAll, deleteRow, rowsOf, updateRow, withChangeID } from "./outbox-rows.js";
import { rebaseState, replay } from "./rebase.js";
import { replaceLocal } from "./replica.js";
import { heldMembers, holdBack, uploadReferences, withheld } from "../attachments/holds.js";

/** @typedef {import("../store/tables.js").Transaction} Transaction */
/** @typedef {import("../sync/remote-change.js").RemoteChange} RemoteChange */
/** @typedef {import("./outbox-rows.js").OutboxRow} OutboxRow */
/** @typedef {import("./replica.js").Replica} Replica */
/** @typedef {import("../events.js").Change} Change */
/**
 * What the sync must do after a batch was taken in.
 * @typedef {object} ReceiveOutcome
 * @property {Set<string>} resync Objects whose ghost fell out of step: fetch them whole.
 * @property {boolean} sendMore Changes became sendable again.
 * @property {Set<string>} resendFull Changes (by ccid) to send again at once as the whole object.
 * @property {boolean} retryLater The server failed for a moment (5xx, 429): send the same again later.
 * @property {boolean} acknowledged The batch acknowledged at least one of our changes.
 */
/** @typedef {{ bucket: string, changes: RemoteChange[] }} ChangeBatch */
/** @typedef {(change: Change | null) => void} Emit */

/** @returns {ReceiveOutcome} */
const newOutcome = () => ({ resync: new Set(), sendMore: false, resendFull: new Set(), retryLater: false, acknowledged: false });

/**
 * Takes in changes from the server, each bucket's in feed order, in one transaction.
 * @param {Replica} replica
 * @param {ChangeBatch[]} batches
 * @returns {Promise<ReceiveOutcome[]>}
 */
export async function receive(replica, batches) {
  const clientID = replica.clientID;
  /** @type {ReceiveOutcome[]} */
  const outcomes = await replica.write((tx, emit) => batches.map((batch) => {
    const outcome = newOutcome();
    take(tx, batch, clientID, outcome, emit);
    return outcome;
  }));
  if (outcomes.some((outcome) => outcome.sendMore || outcome.acknowledged)) replica.outboxChanged.signal();
  return outcomes;
}

/**
 * @param {Transaction} tx
 * @param {ChangeBatch} batch
 * @param {string} clientID
 * @param {ReceiveOutcome} outcome
 * @param {Emit} emit
 */
function take(tx, batch, clientID, outcome, emit) {
  const bucket = batch.bucket;
  for (const change of batch.changes) {
    if (change.error !== null) {
      takeError(tx, bucket, change, outcome, emit);
      continue;
    }
    const row = withChangeID(tx, bucket, change.changeIDs);
    if (row) takeAcknowledgement(tx, bucket, change, row, outcome, emit);
    else takeRemote(tx, bucket, change, clientID, outcome, emit);
    if (change.cursor !== null) updateBucket(tx, bucket, { cv: change.cursor });
  }
}

/**
 * Our change came back applied: the ghost moves to the version it made.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {RemoteChange} change
 * @param {OutboxRow} row
 * @param {ReceiveOutcome} outcome
 * @param {Emit} emit
 */
function takeAcknowledgement(tx, bucket, change, row, outcome, emit) {
  outcome.acknowledged = true;
  const key = change.key;
  const old = ghost(tx, bucket, key);
  if (old && change.endVersion <= old.version) {
    // Already in the ghost (we fetched the object since).
    deleteRow(tx, row.id);
    return;
  }
  if (change.sourceVersion !== (old ? old.version : null) || old?.isDeleted) {
    updateRow(tx, row.id, { status: "accepted" });
    outcome.resync.add(key);
    return;
  }
  let newGhost;
  if (change.operation === "-") {
    newGhost = { version: change.endVersion, data: {}, isDeleted: true };
  } else {
    try {
      newGhost = { version: change.endVersion, data: applyObjectDiff(change.diff, old?.data ?? {}), isDeleted: false };
    } catch {
      updateRow(tx, row.id, { status: "accepted" });
      outcome.resync.add(key);
      return;
    }
  }
  setGhost(tx, bucket, key, newGhost);
  deleteRow(tx, row.id);
  if (rowsOf(tx, bucket, key).length > 0) return;
  // Nothing else pending: the local object is what the server holds (it may have merged ours).
  emit(replaceLocal(tx, bucket, key, local(tx, bucket, key), stateOf(newGhost), { type: "remote" }));
}

/**
 * Another device's change: applied to the ghost, our pending edits rebased over it.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {RemoteChange} change
 * @param {string} clientID
 * @param {ReceiveOutcome} outcome
 * @param {Emit} emit
 */
function takeRemote(tx, bucket, change, clientID, outcome, emit) {
  const key = change.key;
  const old = ghost(tx, bucket, key);
  if (old && change.endVersion <= old.version) return;
  const state = local(tx, bucket, key);
  if (change.operation === "-") {
    setGhost(tx, bucket, key, { version: change.endVersion, data: {}, isDeleted: true });
    deleteAll(tx, bucket, key);
    emit(replaceLocal(tx, bucket, key, state, removed, { type: "remote" }));
    return;
  }
  if (change.sourceVersion !== (old ? old.version : null) || old?.isDeleted) {
    outcome.resync.add(key);
    return;
  }
  const base = old?.data ?? {};
  let data;
  try {
    data = applyObjectDiff(change.diff, base);
  } catch {
    outcome.resync.add(key);
    return;
  }
  setGhost(tx, bucket, key, { version: change.endVersion, data, isDeleted: false });
  const remoteStamp = { time: change.editTime, clientID: change.clientID, changeID: change.changeIDs[0] ?? "" };
  // A member the change set whole or removed is written by it even where that changed no value.
  const written = MemberEdits.between(base, data).members;
  for (const name of Object.keys(change.diff)) if (setsWholeValue(change.diff[name])) written.add(name);
  const remoteWon = raiseStamps(tx, bucket, key, written, () => remoteStamp);
  const pending = rowsOf(tx, bucket, key);
  if (pending.length === 0) {
    emit(replaceLocal(tx, bucket, key, state, present(data), { type: "remote" }));
    return;
  }
  // A queued change may have waited for this version.
  outcome.sendMore = true;
  /** @type {bigint | null} */
  let latest = null;
  for (const row of pending) if (row.editTime !== null && (latest === null || row.editTime > latest)) latest = row.editTime;
  const winner = conflictWinner({ time: latest, clientID }, { time: change.editTime, clientID: change.clientID });
  for (const row of pending) {
    if (row.status !== "queued" && row.expected) {
      updateRow(tx, row.id, { expected: rebaseState(row.expected, base, change.diff, data, winner) });
    }
  }
  if (state.state !== "present") return;
  const rebased = rebaseState(state.data, base, change.diff, data, winner, remoteWon);
  // Where the remote change set a member whole and wrote it last, its value stands.
  for (const name of remoteWon) {
    const operation = member(change.diff, name);
    if (operation === undefined || setsWholeValue(operation)) setMember(rebased, name, member(data, name));
  }
  // Where the remote change set a member whole but a pending change of ours wrote it later, ours stays.
  const pendingIDs = new Set(pending.map((row) => row.ccid));
  const stamps = allStamps(tx, bucket, key);
  for (const name of Object.keys(change.diff)) {
    if (!setsWholeValue(change.diff[name]) || remoteWon.has(name)) continue;
    const stamp = stamps.get(name);
    if (!stamp || !pendingIDs.has(stamp.changeID)) continue;
    setMember(rebased, name, member(state.data, name));
  }
  emit(replaceLocal(tx, bucket, key, state, present(rebased), { type: "remote" }));
}

/**
 * @param {import("../json/value.js").JSONObject} object
 * @param {string} name
 * @param {import("../json/value.js").JSONValue | undefined} value
 */
function setMember(object, name, value) {
  if (value === undefined) delete object[name];
  else put(object, name, value);
}

/**
 * A server error for one of our changes, handled as Simperium clients do.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {RemoteChange} change
 * @param {ReceiveOutcome} outcome
 * @param {Emit} emit
 */
function takeError(tx, bucket, change, outcome, emit) {
  const row = withChangeID(tx, bucket, change.changeIDs);
  const code = change.error;
  if (!row || code === null) return;
  if (code === 409) {
    // A duplicate ccid: the server applied this change before. Fetch what it holds.
    updateRow(tx, row.id, { status: "accepted" });
    outcome.resync.add(row.key);
  } else if (code === 412) {
    // Nothing to change: as good as an acknowledgement.
    deleteRow(tx, row.id);
    outcome.sendMore = true;
    if (rowsOf(tx, bucket, row.key).length > 0) return;
    emit(replaceLocal(tx, bucket, row.key, local(tx, bucket, row.key), stateOf(ghost(tx, bucket, row.key)), { type: "remote" }));
  } else if (code === 404 && row.operation === "-") {
    // Removing what the server no longer has: done.
    deleteRow(tx, row.id);
    outcome.sendMore = true;
  } else if ((code === 405 || code === 440) && row.fullData === null && row.operation === "M") {
    resendWhole(tx, row, outcome, emit);
  } else if (code === 410) {
    takeRemoved(tx, row, code, change.message, emit);
  } else if (code === 424 && row.error !== 424 && uploadReferences(tx, row)) {
    // A reference to a blob this user has not uploaded: uploaded from the device's copy, sent again.
    outcome.sendMore = true;
  } else if (code === 429 || (code >= 500 && code < 600)) {
    outcome.retryLater = true;
  } else {
    reject(tx, row, code, change.message, outcome, emit);
  }
}

/**
 * After 405 (unknown source version) or 440 (the diff did not apply), the whole object goes
 * once, against the ghost, with the same ccid.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 * @param {ReceiveOutcome} outcome
 * @param {Emit} emit
 */
function resendWhole(tx, row, outcome, emit) {
  const state = local(tx, row.bucket, row.key);
  if (state.state !== "present") {
    reject(tx, row, row.error ?? 440, "the change could not be applied", outcome, emit);
    return;
  }
  const base = ghost(tx, row.bucket, row.key);
  // The whole object carries every later edit too; members waiting for uploads stay out.
  for (const queued of rowsOf(tx, row.bucket, row.key)) if (queued.status === "queued") deleteRow(tx, queued.id);
  const held = heldMembers(tx, state.data, base?.data ?? {});
  const whole = withheld(held, state.data, base?.data ?? {});
  if (held.size > 0) holdBack(tx, row, held, state.data);
  updateRow(tx, row.id, { fullData: whole, sourceVersion: base ? base.version : null, expected: whole });
  outcome.sendMore = true;
  outcome.resendFull.add(row.ccid);
}

/**
 * 410: the object was removed on the server, for good.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 * @param {number} code
 * @param {string | null} message
 * @param {Emit} emit
 */
function takeRemoved(tx, row, code, message, emit) {
  const old = ghost(tx, row.bucket, row.key);
  setGhost(tx, row.bucket, row.key, { version: old?.version ?? 0, data: {}, isDeleted: true });
  deleteAll(tx, row.bucket, row.key);
  tx.set("outbox", String(row.id).padStart(16, "0"), {
    ...row, status: "rejected", error: code, message, diff: null, fullData: null, expected: null, members: null, waiting: false,
  });
  emit(replaceLocal(tx, row.bucket, row.key, local(tx, row.bucket, row.key), removed, { type: "rejected", code, message }));
}

/**
 * The server refused the change: it stays listed as rejected, and the local object goes back to
 * the ghost plus any edits made after the refused change.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 * @param {number} code
 * @param {string | null} message
 * @param {ReceiveOutcome} outcome
 * @param {Emit} emit
 */
function reject(tx, row, code, message, outcome, emit) {
  updateRow(tx, row.id, { status: "rejected", error: code, message });
  outcome.sendMore = true;
  const base = ghost(tx, row.bucket, row.key);
  const state = local(tx, row.bucket, row.key);
  let restored = stateOf(base);
  const queued = rowsOf(tx, row.bucket, row.key).filter((other) => other.status === "queued");
  if (queued.length > 0 && state.state === "present") {
    const replayed = replay(state.data, row.expected ?? base?.data ?? {}, base?.data ?? {});
    if (!base || !jsonEqual(replayed, base.data)) restored = present(replayed);
  }
  if (sameState(restored, stateOf(base))) {
    for (const other of queued) deleteRow(tx, other.id);
  }
  emit(replaceLocal(tx, row.bucket, row.key, state, restored, { type: "rejected", code, message }));
}
