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
export function enqueueEdit(tx: Transaction, bucket: string, key: string, old: JSONObject, neu: JSONObject, priority: number, now: bigint | null, clientID: string): void;
/**
 * The change that takes an object from `old` to `neu`, if anything visible changed.
 * @param {LocalState} old
 * @param {LocalState} neu
 * @param {string} bucket
 * @param {string} key
 * @param {Origin} origin
 * @returns {Change | null}
 */
export function changeBetween(old: LocalState, neu: LocalState, bucket: string, key: string, origin: Origin): Change | null;
/**
 * Sets the local object, returning the change the app should see, if any.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {LocalState} old
 * @param {LocalState} neu
 * @param {Origin} origin
 */
export function replaceLocal(tx: Transaction, bucket: string, key: string, old: LocalState, neu: LocalState, origin: Origin): import("../events.js").Change | null;
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
    static open(store: Store, editTimes: () => bigint | null): Promise<Replica>;
    /**
     * @param {Store} store
     * @param {Tables} tables
     * @param {() => bigint | null} editTimes
     */
    constructor(store: Store, tables: Tables, editTimes: () => bigint | null);
    store: import("../store/store.js").Store;
    tables: Tables;
    editTimes: () => bigint | null;
    /** @type {Broadcast<Change>} */
    changes: Broadcast<Change>;
    /** Wakes the sync when the outbox has something new to send. */
    outboxChanged: Wakeup;
    /** Wakes the sync when the app opens a bucket it does not sync yet. */
    bucketsChanged: Wakeup;
    /** @type {Error | null} Set when a commit failed: the tables are no longer the store's. */
    failure: Error | null;
    /** This client's id on the server (`clientid`), made once and kept in the store. */
    get clientID(): string;
    /**
     * Runs a transaction: its body runs at once on the tables (undone if it throws), its writes
     * are committed in one, and its changes are published once they are durable.
     * @template T
     * @param {Body<T>} body
     * @returns {Promise<T>}
     */
    write<T>(body: Body<T>): Promise<T>;
    /**
     * Reads through a transaction that writes nothing.
     * @template T
     * @param {(tx: Transaction) => T} body
     * @returns {T}
     */
    read<T_1>(body: (tx: Transaction) => T_1): T_1;
    /**
     * A local write to `key` of `bucket`: durable when it resolves; then the sync wakes to send it.
     * @template T
     * @param {string} bucket
     * @param {Body<T>} body
     * @returns {Promise<T>}
     */
    writeLocal<T_2>(bucket: string, body: Body<T_2>): Promise<T_2>;
    /**
     * Adds `bucket` to the buckets this store syncs; true when it was not there yet.
     * @param {string} bucket
     */
    register(bucket: string): Promise<boolean>;
    /** The buckets this store syncs, by name. */
    bucketNames(): string[];
    /**
     * The object stored under `key`, as this device last wrote or received it (a copy).
     * @param {string} bucket
     * @param {string} key
     * @returns {JSONObject | undefined}
     */
    object(bucket: string, key: string): JSONObject | undefined;
    /**
     * Every object of the bucket, by key (deleted ones not listed).
     * @param {string} bucket
     * @returns {{ key: string, object: JSONObject }[]}
     */
    objects(bucket: string): {
        key: string;
        object: JSONObject;
    }[];
    /**
     * Stores `object` as the local state of `key` and queues the change for the server.
     * @param {string} bucket
     * @param {string} key
     * @param {JSONObject} object
     * @param {number} priority
     */
    put(bucket: string, key: string, object: JSONObject, priority: number): Promise<any>;
    /**
     * Changes the local state of an existing object through `transform`, which edits a copy in
     * place (or returns a new object), inside the write: no other write slips in between.
     * @param {string} bucket
     * @param {string} key
     * @param {number} priority
     * @param {(object: JSONObject) => JSONObject | void} transform
     */
    update(bucket: string, key: string, priority: number, transform: (object: JSONObject) => JSONObject | void): Promise<any>;
    /**
     * Removes `key` locally (a tombstone) and queues the removal, unless the server never heard
     * of the object.
     * @param {string} bucket
     * @param {string} key
     * @param {number} priority
     */
    delete(bucket: string, key: string, priority: number): Promise<any>;
    /**
     * Changes not yet acknowledged, and uploads not completed (a change held back for an upload
     * counts as its upload does: not at all once that upload failed for good).
     */
    pendingCount(): number;
}
export type Store = import("../store/store.js").Store;
export type JSONObject = import("../json/value.js").JSONObject;
export type Change = import("../events.js").Change;
export type Origin = import("../events.js").Origin;
export type LocalState = import("./records.js").LocalState;
/**
 * A transaction body: reads and writes through `tx`, and reports what the app sees change.
 */
export type Body<T> = (tx: Transaction, emit: (change: Change | null) => void) => T;
import { Transaction } from "../store/tables.js";
import { Tables } from "../store/tables.js";
import { Broadcast } from "../util/stream.js";
import { Wakeup } from "../util/wakeup.js";
