// First sync, and sync after the server forgot the cursor: an index walk (the Swift SDK's
// Replica+Index). Each listed object's ghost becomes the server's version, pending local edits
// replayed on top; on the last page the walk's `current` becomes the cursor, and objects the
// walk did not see (removed on the server) are removed here too.
import { LockstepError } from "../errors.js";
import { isJSONObject } from "../json/value.js";
import { bucketRow, ghost, local, present, removed, setGhost, updateBucket } from "./records.js";
import { deleteAll, deleteRow, rowsOf, rowsWhere } from "./outbox-rows.js";
import { replaceLocal } from "./replica.js";
import { replay } from "./rebase.js";

/** @typedef {import("../store/tables.js").Transaction} Transaction */
/** @typedef {import("./replica.js").Replica} Replica */
/** @typedef {import("./records.js").Ghost} Ghost */
/** @typedef {import("../events.js").Change} Change */
/** @typedef {{ key: string, version: number, data: import("../json/value.js").JSONObject }} IndexEntry */
/** @typedef {{ current: string, entries: IndexEntry[], mark: string | null }} IndexPage */
/** @typedef {{ kind: "changes", after: string } | { kind: "index", mark: string | null }} BucketPosition */

/**
 * Reads one page of a bucket's index (`i:{…}`, `GET /index`).
 * @param {unknown} json
 * @returns {IndexPage}
 */
export function readIndexPage(json) {
  if (!isJSONObject(json) || typeof json.current !== "string" || json.current === "" || !Array.isArray(json.index)) {
    throw new LockstepError("protocol", "an index page without current or index");
  }
  const entries = json.index.map((item) => {
    if (!isJSONObject(item) || typeof item.id !== "string" || typeof item.v !== "number") {
      throw new LockstepError("protocol", "an index entry without id or v");
    }
    return { key: item.id, version: item.v, data: isJSONObject(item.d) ? item.d : {} };
  });
  const mark = typeof json.mark === "string" && json.mark !== "" ? json.mark : null;
  return { current: json.current, entries, mark };
}

/**
 * Where a bucket's sync stands: a cursor to resume the feed from, or an index walk to start or continue.
 * @param {Replica} replica
 * @param {string} bucket
 * @returns {BucketPosition}
 */
export function position(replica, bucket) {
  return replica.read((tx) => {
    const row = bucketRow(tx, bucket);
    if (row && row.walkCurrent !== null) return { kind: "index", mark: row.walkMark };
    if (row && row.cv !== null) return { kind: "changes", after: row.cv };
    return { kind: "index", mark: null };
  });
}

/**
 * Starts an index walk over: the server no longer knows our cursor (`cv:?`), or never did.
 * @param {Replica} replica
 * @param {string} bucket
 */
export function restartIndex(replica, bucket) {
  return replica.write((tx) => updateBucket(tx, bucket, { walkCurrent: null, walkMark: null, cv: null }));
}

/**
 * Takes in one index page; resolves whether the walk is complete.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {IndexPage} page
 * @param {boolean} isFirst
 */
export async function takeIndexPage(replica, bucket, page, isFirst) {
  await replica.write((tx, emit) => {
    const row = bucketRow(tx, bucket);
    if (!row) return;
    if (isFirst) {
      updateBucket(tx, bucket, { walkId: row.walkId + 1, walkCurrent: page.current, walkMark: null });
      // Versions seen live (-1) until now count as seen by no walk: this walk must see them.
      const prefix = bucket + "\u0001";
      for (const [rowKey, ghostRow] of Array.from(tx.rows("ghosts"))) {
        if (ghostRow.walk === -1 && rowKey.startsWith(prefix)) tx.set("ghosts", rowKey, { ...ghostRow, walk: 0 });
      }
    }
    const walk = /** @type {import("./records.js").BucketRow} */ (bucketRow(tx, bucket)).walkId;
    const anyPending = rowsWhere(tx, (outbox) => outbox.bucket === bucket && outbox.status !== "rejected").length > 0;
    for (const entry of page.entries) emit(takeIndexEntry(tx, bucket, entry, walk, anyPending));
    if (page.mark !== null) {
      updateBucket(tx, bucket, { walkMark: page.mark });
      return;
    }
    for (const change of finishWalk(tx, bucket, walk)) emit(change);
  });
  replica.outboxChanged.signal();
  return page.mark === null;
}

/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {IndexEntry} entry
 * @param {number} walk
 * @param {boolean} checkPending
 */
function takeIndexEntry(tx, bucket, entry, walk, checkPending) {
  const old = ghost(tx, bucket, entry.key);
  if (old && old.version === entry.version && !old.isDeleted) {
    setGhost(tx, bucket, entry.key, old, walk);
    return null;
  }
  return resetObject(tx, bucket, entry.key, old, { version: entry.version, data: entry.data, isDeleted: false }, walk, checkPending);
}

/**
 * Makes `server` the ghost of `key` (in place of `oldGhost`) and rebuilds the local object from
 * it plus the edits not yet acknowledged.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {Ghost | undefined} oldGhost
 * @param {Ghost} server
 * @param {number} [walk]
 * @param {boolean} [checkPending]
 * @returns {Change | null}
 */
function resetObject(tx, bucket, key, oldGhost, server, walk = -1, checkPending = true) {
  setGhost(tx, bucket, key, server, walk);
  const old = local(tx, bucket, key);
  let pending = checkPending ? rowsOf(tx, bucket, key) : [];
  if (server.isDeleted) {
    deleteAll(tx, bucket, key);
    return replaceLocal(tx, bucket, key, old, removed, { type: "remote" });
  }
  // A change the server is known to have applied is part of `server` already.
  let appliedState = oldGhost?.data ?? {};
  for (const row of pending) {
    if (row.status !== "accepted") continue;
    appliedState = row.expected ?? appliedState;
    deleteRow(tx, row.id);
  }
  pending = pending.filter((row) => row.status !== "accepted");
  if (pending.length === 0 || old.state !== "present") {
    return replaceLocal(tx, bucket, key, old, pending.length === 0 ? present(server.data) : old, { type: "remote" });
  }
  return replaceLocal(tx, bucket, key, old, present(replay(old.data, appliedState, server.data)), { type: "remote" });
}

/**
 * The walk is over: its snapshot is the cursor, and what it did not see was removed.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {number} walk
 * @returns {Change[]}
 */
function finishWalk(tx, bucket, walk) {
  const row = /** @type {import("./records.js").BucketRow} */ (bucketRow(tx, bucket));
  updateBucket(tx, bucket, { cv: row.walkCurrent, walkCurrent: null, walkMark: null });
  /** @type {string[]} */
  const gone = [];
  const prefix = bucket + "\u0001";
  for (const [rowKey, ghostRow] of tx.rows("ghosts")) {
    if (ghostRow.walk !== walk && ghostRow.walk !== -1 && !ghostRow.deleted && rowKey.startsWith(prefix)) gone.push(rowKey.slice(prefix.length));
  }
  /** @type {Change[]} */
  const changes = [];
  for (const key of gone) {
    const old = ghost(tx, bucket, key);
    const change = resetObject(tx, bucket, key, old, { version: old?.version ?? 0, data: {}, isDeleted: true });
    if (change) changes.push(change);
  }
  return changes;
}

/**
 * Takes in an object fetched whole from the server (null: it is gone) after its ghost fell out of step.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {string} key
 * @param {{ version: number, data: import("../json/value.js").JSONObject } | null} fetched
 */
export async function takeFetched(replica, bucket, key, fetched) {
  await replica.write((tx, emit) => {
    const old = ghost(tx, bucket, key);
    /** @type {Ghost} */
    let server;
    if (fetched) {
      if (old && old.version > fetched.version) return;
      server = { version: fetched.version, data: fetched.data, isDeleted: false };
    } else {
      server = { version: old?.version ?? 0, data: {}, isDeleted: true };
    }
    emit(resetObject(tx, bucket, key, old, server));
  });
  replica.outboxChanged.signal();
}

/**
 * Keeps the bucket options the server sent (`o:{…}`), for the app to read.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {string} json
 */
export function setOptions(replica, bucket, json) {
  return replica.write((tx) => updateBucket(tx, bucket, { options: json }));
}
