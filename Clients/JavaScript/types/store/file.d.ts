/// <reference path="../../typings/node.d.ts" />
/** @typedef {import("./store.js").Store} Store */
/** @implements {Store} */
export class FileStore implements Store {
    /**
     * Opens (or creates) the store in `directory`.
     * @param {string} directory
     */
    static open(directory: string): Promise<FileStore>;
    /**
     * @param {string} directory
     * @param {typeof import("node:fs/promises")} fs
     * @param {typeof import("node:path")} path
     */
    constructor(directory: string, fs: typeof import("node:fs/promises"), path: typeof import("node:path"));
    /**
     * Takes the directory for this process: a second process (or client) on one store would
     * overwrite the first's commits. A lock left by a process that died is taken over.
     */
    lock(): Promise<void>;
    locked: boolean;
    directory: string;
    fs: typeof import("node:fs/promises");
    path: typeof import("node:path");
    kind: string;
    /** @type {import("node:fs/promises").FileHandle | null} */
    log: import("node:fs/promises").FileHandle | null;
    logBytes: number;
    /** Commits run one after another, in the order they were asked for. */
    /** @type {Promise<unknown>} */
    queue: Promise<unknown>;
    /** @type {Map<TableName, Map<string, any>>} */
    snapshot: Map<TableName, Map<string, any>>;
    /** @param {string} name */
    file(name: string): string;
    /** The snapshot with the log's complete commits applied. */
    read(): Promise<Map<import("./tables.js").TableName, Map<string, any>>>;
    /**
     * Writes `tables` as the new snapshot and starts an empty log.
     * @param {Map<TableName, Map<string, any>>} tables
     */
    compact(tables: Map<TableName, Map<string, any>>): Promise<void>;
    syncDirectory(): Promise<void>;
    load(): Promise<Map<import("./tables.js").TableName, Map<string, any>>>;
    /** @param {Change[]} changes */
    commit(changes: import("./tables.js").Change[]): Promise<void>;
    /** @param {Change[]} changes */
    append(changes: import("./tables.js").Change[]): Promise<void>;
    /** @param {string} name */
    blobFile(name: string): string;
    /** @param {string} name @param {Blob} bytes */
    putBlob(name: string, bytes: Blob): Promise<void>;
    /** @param {string} name @returns {Promise<Blob | null>} */
    getBlob(name: string): Promise<Blob | null>;
    /** @param {string} name */
    deleteBlob(name: string): Promise<void>;
    close(): Promise<void>;
}
export type Change = import("./tables.js").Change;
export type TableName = import("./tables.js").TableName;
export type Store = import("./store.js").Store;
