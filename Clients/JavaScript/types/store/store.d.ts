export type Change = import("./tables.js").Change;
export type TableName = import("./tables.js").TableName;
export type Store = {
    /**
     * "indexeddb", "file" or "memory".
     */
    kind: string;
    /**
     * Every table's rows.
     */
    load: () => Promise<Map<TableName, Map<string, any>>>;
    /**
     * Writes
     * (a value of undefined deletes) that land together or not at all; durable when the promise
     * resolves. `tables` holds every row as the writes leave it, for a store that keeps several
     * tables' rows of one key together; read it before the promise's first await.
     */
    commit: (changes: import("./tables.js").Change[], tables: import("./tables.js").Tables) => Promise<void>;
    /**
     * Stores attachment bytes, durably.
     */
    putBlob: (name: string, bytes: Blob) => Promise<void>;
    /**
     * The bytes stored under `name`.
     */
    getBlob: (name: string) => Promise<Blob | null>;
    deleteBlob: (name: string) => Promise<void>;
    close: () => Promise<void>;
};
