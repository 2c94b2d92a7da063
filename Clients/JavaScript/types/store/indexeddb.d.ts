/** @typedef {import("./store.js").Store} Store */
/** @implements {Store} */
export class IndexedDBStore implements Store {
    /**
     * Opens (or creates) the database `lockstep:<name>`.
     * @param {string} name
     * @param {IDBFactory} [factory]
     */
    static open(name: string, factory?: IDBFactory | undefined): Promise<IndexedDBStore>;
    /**
     * @param {IDBDatabase} database
     * @param {() => void} release Lets another page open the store.
     */
    constructor(database: IDBDatabase, release: () => void);
    database: IDBDatabase;
    release: () => void;
    kind: string;
    load(): Promise<Map<import("./tables.js").TableName, Map<string, any>>>;
    /**
     * @param {Change[]} changes
     * @param {import("./tables.js").Tables} tables
     */
    commit(changes: import("./tables.js").Change[], tables: import("./tables.js").Tables): Promise<void>;
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
