/**
 * @param {LocalState} a
 * @param {LocalState} b
 */
export function sameState(a: LocalState, b: LocalState): boolean;
/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @returns {LocalState}
 */
export function local(tx: Transaction, bucket: string, key: string): LocalState;
/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {LocalState} state
 */
export function setLocal(tx: Transaction, bucket: string, key: string, state: LocalState): void;
/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @returns {Ghost | undefined}
 */
export function ghost(tx: Transaction, bucket: string, key: string): Ghost | undefined;
/**
 * Writes a ghost. `walk` is the index walk that saw this version; one from the change feed is
 * marked -1 (seen live), which keeps it through the walk under way.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {Ghost} ghost
 * @param {number} [walk]
 */
export function setGhost(tx: Transaction, bucket: string, key: string, ghost: Ghost, walk?: number | undefined): void;
/**
 * The local state that follows from the ghost when nothing is pending.
 * @param {Ghost | undefined} ghost
 * @returns {LocalState}
 */
export function stateOf(ghost: Ghost | undefined): LocalState;
/**
 * Changes a bucket's row, if the bucket is synced.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {Partial<BucketRow>} fields
 */
export function updateBucket(tx: Transaction, bucket: string, fields: Partial<BucketRow>): void;
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
export const absent: LocalState;
/** @type {LocalState} */
export const removed: LocalState;
export function present(data: JSONObject): LocalState;
export function dataOf(state: LocalState): import("../json/value.js").JSONObject | undefined;
export function bucketRow(tx: Transaction, bucket: string): BucketRow | undefined;
export type Transaction = import("../store/tables.js").Transaction;
export type JSONObject = import("../json/value.js").JSONObject;
/**
 * What the app sees of one object: nothing yet, its data, or a tombstone.
 */
export type LocalState = {
    state: "absent";
} | {
    state: "present";
    data: JSONObject;
} | {
    state: "removed";
};
/**
 * The last version of an object the server acknowledged.
 */
export type Ghost = {
    version: number;
    data: JSONObject;
    isDeleted: boolean;
};
/**
 * A bucket this store syncs, and where its sync stands.
 */
export type BucketRow = {
    /**
     * The cursor to resume the change feed from.
     */
    cv: string | null;
    /**
     * The snapshot of an index walk under way.
     */
    walkCurrent: string | null;
    /**
     * Where the walk goes on.
     */
    walkMark: string | null;
    /**
     * Counts walks, to tell which objects the last one saw.
     */
    walkId: number;
    /**
     * The bucket's options as the server sent them.
     */
    options: string | null;
};
