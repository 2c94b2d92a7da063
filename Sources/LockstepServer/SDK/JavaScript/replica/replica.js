// The client's local copy of its buckets, and the only code that changes it (the Swift SDK's
// Replica). Every operation is one transaction over objects, ghosts, the outbox and cursors, so
// they never disagree, even across a crash; its events go out once it is durable.
import { Tables, Transaction, splitObjectKey } from "../store/tables.js";
import { Wakeup } from "../util/wakeup.js";
import { Broadcast } from "../util/stream.js";
import { LockstepError } from "../errors.js";
import { assertJSON, copyJSON } from "../json/value.js";
import { MemberEdits } from "./member-edits.js";
import { editTime } from "./stamps.js";
import { dataOf, ghost, local, present, removed, sameState, setLocal, bucketRow } from "./records.js";
import { deleteAll, enqueue, newChangeID, rowsOf, rowsWhere } from "./outbox-rows.js";
import { spaceOfBucket } from "../spaces/names.js";

/** @typedef {import("../store/store.js").Store} Store */
/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("../events.js").Change} Change */
/** @typedef {import("../events.js").Origin} Origin */
/** @typedef {import("./records.js").LocalState} LocalState */
/**
 * A transaction body: reads and writes through `tx`, and reports what the app sees change.
 * @template T
 * @typedef {(tx: Transaction, emit: (change: Change | null) => void) => T} Body
 */

export class Replica {
  /**
   * Loads the store's tables, and makes this store's client id the first time.
   * @param {Store} store
   * @param {() => bigint | null} editTimes Now on the server's clock, if known.
   */
  static async open(store, editTimes) {
    const replica = new Replica(store, new Tables(await store.load()), editTimes);
    await replica.write((tx) => {
      if (!tx.get("meta", "clientid")) tx.set("meta", "clientid", "lockstep-js-" + newChangeID());
    });
    return replica;
  }

  /**
   * @param {Store} store
   * @param {Tables} tables
   * @param {() => bigint | null} editTimes
   */
  constructor(store, tables, editTimes) {
    this.store = store;
    this.tables = tables;
    this.editTimes = editTimes;
    /** @type {Broadcast<Change>} */
    this.changes = new Broadcast();
    /** Wakes the sync when the outbox has something new to send. */
    this.outboxChanged = new Wakeup();
    /** Wakes the sync when the app opens a bucket it does not sync yet. */
    this.bucketsChanged = new Wakeup();
    /** @type {Error | null} Set when a commit failed: the tables are no longer the store's. */
    this.failure = null;
  }

  /** This client's id on the server (`clientid`), made once and kept in the store. */
  get clientID() {
    return /** @type {string} */ (this.tables.table("meta").get("clientid"));
  }

  /**
   * Runs a transaction: its body runs at once on the tables (undone if it throws), its writes
   * are committed in one, and its changes are published once they are durable.
   * @template T
   * @param {Body<T>} body
   * @returns {Promise<T>}
   */
  async write(body) {
    if (this.failure) {
      throw new LockstepError("store-failed", `the local store failed (${this.failure.message}); open the client again`);
    }
    const tx = new Transaction(this.tables);
    /** @type {Change[]} */
    const changes = [];
    let result;
    try {
      result = body(tx, (change) => {
        if (change) changes.push(change);
      });
    } catch (error) {
      tx.undo();
      throw error;
    }
    try {
      await this.store.commit(tx.changes, this.tables);
    } catch (error) {
      this.failure = /** @type {Error} */ (error);
      throw new LockstepError("store-failed", `the local store could not be written: ${this.failure.message}`);
    }
    for (const change of changes) this.changes.publish(change);
    return result;
  }

  /**
   * Reads through a transaction that writes nothing.
   * @template T
   * @param {(tx: Transaction) => T} body
   * @returns {T}
   */
  read(body) {
    return body(new Transaction(this.tables));
  }

  /**
   * A local write to `key` of `bucket`: durable when it resolves; then the sync wakes to send it.
   * @template T
   * @param {string} bucket
   * @param {Body<T>} body
   * @returns {Promise<T>}
   */
  async writeLocal(bucket, body) {
    const result = await this.write((tx, emit) => {
      refuseIfForgotten(tx, bucket);
      return body(tx, emit);
    });
    this.outboxChanged.signal();
    return result;
  }

  // Buckets

  /**
   * Adds `bucket` to the buckets this store syncs; true when it was not there yet.
   * @param {string} bucket
   */
  async register(bucket) {
    const added = await this.write((tx) => {
      if (bucketRow(tx, bucket)) return false;
      tx.set("buckets", bucket, { cv: null, walkCurrent: null, walkMark: null, walkId: 0, options: null });
      return true;
    });
    if (added) this.bucketsChanged.signal();
    return added;
  }

  /** The buckets this store syncs, by name. */
  bucketNames() {
    return Array.from(this.tables.table("buckets").keys()).sort();
  }

  // Reading

  /**
   * The object stored under `key`, as this device last wrote or received it (a copy).
   * @param {string} bucket
   * @param {string} key
   * @returns {JSONObject | undefined}
   */
  object(bucket, key) {
    const data = this.read((tx) => dataOf(local(tx, bucket, key)));
    return data === undefined ? undefined : copyJSON(data);
  }

  /**
   * Every object of the bucket, by key (deleted ones not listed).
   * @param {string} bucket
   * @returns {{ key: string, object: JSONObject }[]}
   */
  objects(bucket) {
    /** @type {{ key: string, object: JSONObject }[]} */
    const objects = [];
    for (const [rowKey, row] of this.tables.table("objects")) {
      const [rowBucket, key] = splitObjectKey(rowKey);
      if (rowBucket === bucket && !row.deleted) objects.push({ key, object: copyJSON(row.data) });
    }
    return objects.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  // Local writes

  /**
   * Stores `object` as the local state of `key` and queues the change for the server.
   * @param {string} bucket
   * @param {string} key
   * @param {JSONObject} object
   * @param {number} priority
   */
  put(bucket, key, object, priority) {
    assertJSON(object, "the object");
    const data = copyJSON(object);
    const now = this.editTimes();
    const clientID = this.clientID;
    return this.writeLocal(bucket, (tx, emit) => {
      const old = local(tx, bucket, key);
      if (old.state === "removed" || ghost(tx, bucket, key)?.isDeleted) throw removedError(bucket, key);
      const neu = present(data);
      if (sameState(old, neu)) return;
      setLocal(tx, bucket, key, neu);
      enqueueEdit(tx, bucket, key, dataOf(old) ?? {}, data, priority, now, clientID);
      emit(changeBetween(old, neu, bucket, key, { type: "local" }));
    });
  }

  /**
   * Changes the local state of an existing object through `transform`, which edits a copy in
   * place (or returns a new object), inside the write: no other write slips in between.
   * @param {string} bucket
   * @param {string} key
   * @param {number} priority
   * @param {(object: JSONObject) => JSONObject | void} transform
   */
  update(bucket, key, priority, transform) {
    const now = this.editTimes();
    const clientID = this.clientID;
    return this.writeLocal(bucket, (tx, emit) => {
      const old = local(tx, bucket, key);
      if (old.state === "removed") throw removedError(bucket, key);
      if (old.state === "absent") throw new LockstepError("not-found", `${bucket}/${key} does not exist`);
      const before = old.data;
      const draft = copyJSON(before);
      const returned = transform(draft);
      const object = returned === undefined ? draft : returned;
      assertJSON(object, "the object");
      const data = copyJSON(object);
      const neu = present(data);
      if (sameState(old, neu)) return;
      setLocal(tx, bucket, key, neu);
      enqueueEdit(tx, bucket, key, before, data, priority, now, clientID);
      emit(changeBetween(old, neu, bucket, key, { type: "local" }));
    });
  }

  /**
   * Removes `key` locally (a tombstone) and queues the removal, unless the server never heard
   * of the object.
   * @param {string} bucket
   * @param {string} key
   * @param {number} priority
   */
  delete(bucket, key, priority) {
    const now = this.editTimes();
    const clientID = this.clientID;
    return this.writeLocal(bucket, (tx, emit) => {
      const old = local(tx, bucket, key);
      if (old.state !== "present") {
        if (old.state === "removed") return;
        throw new LockstepError("not-found", `${bucket}/${key} does not exist`);
      }
      setLocal(tx, bucket, key, removed);
      const known = ghost(tx, bucket, key) !== undefined || rowsOf(tx, bucket, key).some((row) => row.status !== "queued");
      if (known) enqueue(tx, bucket, key, "-", priority, now, new MemberEdits(), clientID);
      else deleteAll(tx, bucket, key);
      emit(changeBetween(old, removed, bucket, key, { type: "local" }));
    });
  }

  /**
   * Changes not yet acknowledged, and uploads not completed (a change held back for an upload
   * counts as its upload does: not at all once that upload failed for good).
   */
  pendingCount() {
    let count = rowsWhere(new Transaction(this.tables), (row) => row.status !== "rejected" && !row.waiting).length;
    for (const [, upload] of this.tables.table("uploads")) if (upload.error === null) count++;
    return count;
  }
}

/**
 * Queues the edit from `old` to `neu`, stamped no earlier than what it overwrites.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {JSONObject} old
 * @param {JSONObject} neu
 * @param {number} priority
 * @param {bigint | null} now
 * @param {string} clientID
 */
export function enqueueEdit(tx, bucket, key, old, neu, priority, now, clientID) {
  const time = editTime(tx, bucket, key, MemberEdits.between(old, neu).members, now);
  enqueue(tx, bucket, key, "M", priority, time, MemberEdits.between(old, neu, time), clientID);
}

/**
 * The change that takes an object from `old` to `neu`, if anything visible changed.
 * @param {LocalState} old
 * @param {LocalState} neu
 * @param {string} bucket
 * @param {string} key
 * @param {Origin} origin
 * @returns {Change | null}
 */
export function changeBetween(old, neu, bucket, key, origin) {
  const before = dataOf(old);
  const after = dataOf(neu);
  if (before === undefined && after !== undefined) return change("inserted", bucket, key, after, origin);
  if (before !== undefined && after === undefined) return change("deleted", bucket, key, null, origin);
  if (before !== undefined && after !== undefined && !sameState(old, neu)) return change("updated", bucket, key, after, origin);
  return null;
}

/**
 * A change whose object is copied when first read: an index walk of 10,000 objects that nobody
 * looks at copies nothing, and an app that edits the object it got cannot reach the store's.
 * @param {Change["kind"]} kind
 * @param {string} bucket
 * @param {string} key
 * @param {JSONObject | null} data
 * @param {Origin} origin
 * @returns {Change}
 */
const change = (kind, bucket, key, data, origin) => new LazyChange(kind, bucket, key, data, origin);

/** @implements {Change} */
class LazyChange {
  /**
   * @param {Change["kind"]} kind
   * @param {string} bucket
   * @param {string} key
   * @param {JSONObject | null} data
   * @param {Origin} origin
   */
  constructor(kind, bucket, key, data, origin) {
    this.kind = kind;
    this.bucket = bucket;
    this.key = key;
    this.origin = origin;
    /** @type {JSONObject | null} The store's object until copied, then the copy. */
    this.#data = data;
    this.#copied = data === null;
  }

  /** @type {JSONObject | null} */
  #data;
  #copied;

  /** The object after the change (a copy, made when first read); null when deleted. */
  get object() {
    if (!this.#copied) {
      this.#data = copyJSON(/** @type {JSONObject} */ (this.#data));
      this.#copied = true;
    }
    return this.#data;
  }
}

/**
 * Sets the local object, returning the change the app should see, if any.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {LocalState} old
 * @param {LocalState} neu
 * @param {Origin} origin
 */
export function replaceLocal(tx, bucket, key, old, neu, origin) {
  if (sameState(old, neu)) return null;
  setLocal(tx, bucket, key, neu);
  return changeBetween(old, neu, bucket, key, origin);
}

/**
 * Refuses a write to a bucket of a space this user lost, which would wait for a sync that
 * never comes. Opening the bucket again, once a member again, makes it writable.
 * @param {Transaction} tx
 * @param {string} bucket
 */
function refuseIfForgotten(tx, bucket) {
  const space = spaceOfBucket(bucket);
  if (space !== null && !bucketRow(tx, bucket)) {
    throw new LockstepError("not-found", `there is no space ${space} (or you are not a member of it)`, 404);
  }
}

/**
 * @param {string} bucket
 * @param {string} key
 */
const removedError = (bucket, key) =>
  new LockstepError("removed", `${bucket}/${key} was removed, and removed objects never come back`, 410);
