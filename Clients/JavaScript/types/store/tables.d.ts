/**
 * The bucket and key an object's row key names.
 * @param {string} rowKey
 * @returns {[string, string]}
 */
export function splitObjectKey(rowKey: string): [string, string];
/** @typedef {"meta" | "objects" | "ghosts" | "outbox" | "buckets" | "stamps" | "blobs" | "uploads"} TableName */
/** @typedef {[TableName, string, unknown]} Change  A row written (or, with the value `undefined`, deleted). */
/** @type {TableName[]} */
export const tableNames: TableName[];
export function objectKey(bucket: string, key: string): string;
/** The tables of one replica, in memory. */
export class Tables {
    /** @param {Map<TableName, Map<string, any>>} [loaded] What the store held. */
    constructor(loaded?: Map<TableName, Map<string, any>> | undefined);
    /** @type {Map<TableName, Map<string, any>>} */
    tables: Map<TableName, Map<string, any>>;
    /**
     * @param {TableName} table
     * @returns {Map<string, any>}
     */
    table(table: TableName): Map<string, any>;
}
/**
 * One transaction: reads see its own writes, and every write is recorded for the commit and,
 * should the body throw, undone.
 */
export class Transaction {
    /** @param {Tables} tables */
    constructor(tables: Tables);
    tables: Tables;
    /** @type {Map<TableName, Map<string, unknown>>} What each table's written rows hold now (undefined: deleted). */
    written: Map<TableName, Map<string, unknown>>;
    /** @type {Map<TableName, Map<string, unknown>>} What they held before the transaction. */
    before: Map<TableName, Map<string, unknown>>;
    /**
     * @param {TableName} table
     * @param {string} key
     */
    get(table: TableName, key: string): any;
    /**
     * The rows of a table, in the order they were first written.
     * @param {TableName} table
     * @returns {IterableIterator<[string, any]>}
     */
    rows(table: TableName): IterableIterator<[string, any]>;
    /**
     * Writes a row; `undefined` deletes it.
     * @param {TableName} table
     * @param {string} key
     * @param {unknown} value
     */
    set(table: TableName, key: string, value: unknown): void;
    /**
     * @param {TableName} table
     * @param {string} key
     */
    delete(table: TableName, key: string): void;
    /** What the transaction wrote, for the store: a value of undefined deletes the row. */
    get changes(): Change[];
    /** Puts back every row this transaction wrote, as it was. */
    undo(): void;
}
export type TableName = "meta" | "objects" | "ghosts" | "outbox" | "buckets" | "stamps" | "blobs" | "uploads";
/**
 * A row written (or, with the value `undefined`, deleted).
 */
export type Change = [TableName, string, unknown];
