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
export function readIndexPage(json: unknown): IndexPage;
/**
 * Where a bucket's sync stands: a cursor to resume the feed from, or an index walk to start or continue.
 * @param {Replica} replica
 * @param {string} bucket
 * @returns {BucketPosition}
 */
export function position(replica: Replica, bucket: string): BucketPosition;
/**
 * Starts an index walk over: the server no longer knows our cursor (`cv:?`), or never did.
 * @param {Replica} replica
 * @param {string} bucket
 */
export function restartIndex(replica: Replica, bucket: string): Promise<void>;
/**
 * Takes in one index page; resolves whether the walk is complete.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {IndexPage} page
 * @param {boolean} isFirst
 */
export function takeIndexPage(replica: Replica, bucket: string, page: IndexPage, isFirst: boolean): Promise<boolean>;
/**
 * Takes in an object fetched whole from the server (null: it is gone) after its ghost fell out of step.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {string} key
 * @param {{ version: number, data: import("../json/value.js").JSONObject } | null} fetched
 */
export function takeFetched(replica: Replica, bucket: string, key: string, fetched: {
    version: number;
    data: import("../json/value.js").JSONObject;
} | null): Promise<void>;
/**
 * Keeps the bucket options the server sent (`o:{…}`), for the app to read.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {string} json
 */
export function setOptions(replica: Replica, bucket: string, json: string): Promise<void>;
export type Transaction = import("../store/tables.js").Transaction;
export type Replica = import("./replica.js").Replica;
export type Ghost = import("./records.js").Ghost;
export type Change = import("../events.js").Change;
export type IndexEntry = {
    key: string;
    version: number;
    data: import("../json/value.js").JSONObject;
};
export type IndexPage = {
    current: string;
    entries: IndexEntry[];
    mark: string | null;
};
export type BucketPosition = {
    kind: "changes";
    after: string;
} | {
    kind: "index";
    mark: string | null;
};
