/** @typedef {import("./tables.js").Change} Change */
/** @typedef {import("./tables.js").TableName} TableName */
/** @typedef {import("./store.js").Store} Store */
/** @implements {Store} */
export class MemoryStore implements Store {
    /** @type {Map<TableName, Map<string, any>>} */
    tables: Map<TableName, Map<string, any>>;
    /** @type {Map<string, Blob>} */
    blobs: Map<string, Blob>;
    kind: string;
    load(): Promise<Map<import("./tables.js").TableName, Map<string, any>>>;
    /** @param {Change[]} changes */
    commit(changes: import("./tables.js").Change[]): Promise<void>;
    /** @param {string} name @param {Blob} bytes */
    putBlob(name: string, bytes: Blob): Promise<void>;
    /** @param {string} name */
    getBlob(name: string): Promise<Blob | null>;
    /** @param {string} name */
    deleteBlob(name: string): Promise<void>;
    close(): Promise<void>;
}
export type Change = import("./tables.js").Change;
export type TableName = import("./tables.js").TableName;
export type Store = import("./store.js").Store;
