// Taking changes out of the outbox to send (the Swift SDK's Replica+Outgoing): one change in
// flight per object, highest priority first. A change that stands alone for its object is
// frozen as the diff from the ghost to the local object at that moment, so every edit queued
// since the last send goes as one change; others go as their member edits.
import { makeObjectDiff } from "../diff/make.js";
import { isEmptyDiff } from "../diff/operations.js";
import { heldMembers, holdBack, withheld } from "../attachments/holds.js";
import { allStamps } from "./stamps.js";
import { dataOf, ghost, local } from "./records.js";
import { deleteRow, memberEditsOf, rowsOf, rowsWhere, saveRow, updateRow, wireChange, withChangeID } from "./outbox-rows.js";
import { member } from "../json/value.js";

/** @typedef {import("../store/tables.js").Transaction} Transaction */
/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("./outbox-rows.js").OutboxRow} OutboxRow */
/** @typedef {import("./replica.js").Replica} Replica */

/**
 * The changes to send now, as the server reads them: with `resend`, first every change sent
 * before and never answered (after a reconnect), unchanged; then the first queued change of
 * each object that has none in flight, highest priority first.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {boolean} resend
 * @param {number} [limit]
 * @returns {Promise<Record<string, unknown>[]>}
 */
export function takeOutgoing(replica, bucket, resend, limit = 500) {
  return replica.write((tx) => {
    /** @type {Record<string, unknown>[]} */
    const outgoing = [];
    if (resend) {
      for (const row of rowsWhere(tx, (row) => row.bucket === bucket && row.status === "sent")) outgoing.push(wireChange(row));
    }
    // A dropped change lets the next one of its object go: look again until none is.
    let dropped = true;
    while (dropped && outgoing.length < limit) {
      dropped = false;
      const rows = rowsWhere(tx, (row) => row.bucket === bucket && row.status !== "rejected");
      /** @type {Set<string>} */
      const blocked = new Set();
      /** @type {OutboxRow[]} */
      const candidates = [];
      for (const row of rows) {
        const blocking = row.status === "sent" || row.status === "accepted" || (row.status === "queued" && !row.waiting);
        if (row.status === "queued" && !row.waiting && !blocked.has(row.key)) candidates.push(row);
        if (blocking) blocked.add(row.key);
      }
      // Only objects with nothing in flight: a sent or accepted row anywhere blocks its object.
      const inFlight = new Set(rows.filter((row) => row.status === "sent" || row.status === "accepted").map((row) => row.key));
      const queued = candidates.filter((row) => !inFlight.has(row.key))
        .sort((a, b) => b.priority - a.priority || a.id - b.id)
        .slice(0, limit - outgoing.length);
      for (const row of queued) {
        const outcome = freeze(tx, row);
        if (outcome === "send") outgoing.push(wireChange(/** @type {OutboxRow} */ (tx.get("outbox", key(row)))));
        else if (outcome === "drop") {
          deleteRow(tx, row.id);
          dropped = true;
        }
      }
    }
    return outgoing;
  });
}

/** @param {OutboxRow} row */
const key = (row) => String(row.id).padStart(16, "0");

/**
 * The sent changes with these ccids, as they are to be resent now.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {Iterable<string>} changeIDs
 */
export function outgoingByChangeIDs(replica, bucket, changeIDs) {
  return replica.read((tx) => {
    /** @type {Record<string, unknown>[]} */
    const changes = [];
    for (const changeID of changeIDs) {
      const row = withChangeID(tx, bucket, [changeID]);
      if (row && row.status === "sent") changes.push(wireChange(row));
    }
    return changes;
  });
}

/**
 * Fixes a queued change's payload against the ghost and marks it sent: "send", "drop" (nothing
 * left to send) or "wait" (its members all wait for uploads).
 * @param {Transaction} tx
 * @param {OutboxRow} row
 * @returns {"send" | "drop" | "wait"}
 */
function freeze(tx, row) {
  const base = ghost(tx, row.bucket, row.key);
  const state = local(tx, row.bucket, row.key);
  const standsAlone = rowsOf(tx, row.bucket, row.key).length <= 1;
  /** @type {Partial<OutboxRow>} */
  const frozen = {};
  if (row.operation === "-") {
    if (base === undefined) return standsAlone ? "drop" : "wait";
    frozen.expected = null;
  } else if (state.state === "present" && standsAlone) {
    const ghostData = base?.data ?? {};
    const held = heldMembers(tx, state.data, ghostData);
    const sent = withheld(held, state.data, ghostData);
    const diff = makeObjectDiff(ghostData, sent);
    if (held.size > 0) {
      if (isEmptyDiff(diff)) return holdWhole(tx, row);
      holdBack(tx, row, held, state.data);
    }
    if (base !== undefined) restateRemovals(tx, row, ghostData, sent, diff);
    if (isEmptyDiff(diff) && base !== undefined) return "drop";
    Object.assign(frozen, { diff, sourceVersion: base?.version ?? null, expected: sent });
  } else if (state.state !== "present" && standsAlone) {
    return "drop";
  } else {
    if (base?.isDeleted) return "drop";
    const ghostData = base?.data ?? {};
    const merged = mergedEdits(tx, row, state, ghostData);
    const held = heldMembers(tx, merged, ghostData);
    const sent = withheld(held, merged, ghostData);
    const diff = makeObjectDiff(ghostData, sent);
    if (held.size > 0) {
      if (isEmptyDiff(diff)) return holdWhole(tx, row);
      holdBack(tx, row, held, merged);
    }
    if (base !== undefined) restateRemovals(tx, row, ghostData, sent, diff);
    if (isEmptyDiff(diff) && base !== undefined) return "drop";
    const localData = dataOf(state);
    Object.assign(frozen, {
      diff, sourceVersion: base?.version ?? null, expected: localData ? withheld(held, localData, ghostData) : sent,
    });
  }
  saveRow(tx, { ...row, ...frozen, status: "sent", waiting: false });
  return "send";
}

/**
 * Adds to `diff` each member `row` removed that the ghost lacks (another device's removal came
 * in since) while `row` is still its latest writer here: the removal is the member's latest
 * write, and an earlier edit arriving after it must lose to it.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 * @param {JSONObject} base
 * @param {JSONObject} sent
 * @param {import("../diff/operations.js").ObjectDiff} diff
 */
function restateRemovals(tx, row, base, sent, diff) {
  const removed = row.members?.unset ?? [];
  if (removed.length === 0) return;
  const stamps = allStamps(tx, row.bucket, row.key);
  for (const name of removed) {
    if (member(base, name) === undefined && member(sent, name) === undefined && member(diff, name) === undefined
      && stamps.get(name)?.changeID === row.ccid) {
      Object.defineProperty(diff, name, { value: { o: "-" }, enumerable: true, writable: true, configurable: true });
    }
  }
}

/**
 * Everything `row` would send waits for attachments to upload: the row waits, whole.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 * @returns {"wait"}
 */
function holdWhole(tx, row) {
  updateRow(tx, row.id, { waiting: true });
  return "wait";
}

/**
 * The row's member edits merged into `base`: each member this row (or one queued behind it) is
 * still the latest writer of here, and each text edit that finds its place. Once the object is
 * deleted here, the whole edit goes, for the removal behind it to apply to.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 * @param {import("./records.js").LocalState} state
 * @param {JSONObject} base
 */
function mergedEdits(tx, row, state, base) {
  const edits = memberEditsOf(tx, row);
  if (state.state !== "present") return edits.mergedInto(base, edits.members).object;
  const stamps = allStamps(tx, row.bucket, row.key);
  const queuedBehind = new Set(rowsOf(tx, row.bucket, row.key).filter((other) => other.id > row.id).map((other) => other.ccid));
  const winning = new Set(Array.from(edits.members).filter((name) => {
    const stamp = stamps.get(name);
    return stamp !== undefined && (stamp.changeID === row.ccid || queuedBehind.has(stamp.changeID));
  }));
  return edits.mergedInto(base, winning).object;
}

/**
 * The HTTP answer to `POST /changes` said these changes (each by its ccids) were applied; their
 * acknowledgements will come through the change feed.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {string[][]} changes
 */
export function markAccepted(replica, bucket, changes) {
  if (changes.length === 0) return Promise.resolve();
  return replica.write((tx) => {
    for (const changeIDs of changes) {
      const row = withChangeID(tx, bucket, changeIDs);
      if (row && row.status === "sent") updateRow(tx, row.id, { status: "accepted" });
    }
  });
}
