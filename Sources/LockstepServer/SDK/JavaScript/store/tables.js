// The client's local state, all of it in memory, and the transactions that change it.
//
// Everything a replica knows lives in eight tables, the same as the Swift SDK's SQLite file:
// each object's local state, its ghost (the last version the server acknowledged), the outbox,
// each bucket's cursor, the member stamps, the attachments known and the upload queue, and a
// few settings. A transaction runs synchronously on the tables and records what it wrote; the
// writes then go to the durable store in one commit, in the order the transactions ran. So no
// two transactions interleave, and a reader never waits for storage.

/** @typedef {"meta" | "objects" | "ghosts" | "outbox" | "buckets" | "stamps" | "blobs" | "uploads"} TableName */
/** @typedef {[TableName, string, unknown]} Change  A row written (or, with the value `undefined`, deleted). */

/** @type {TableName[]} */
export const tableNames = ["meta", "objects", "ghosts", "outbox", "buckets", "stamps", "blobs", "uploads"];

/**
 * The key of an object's rows: its bucket and key, which never hold a U+0001.
 * @param {string} bucket
 * @param {string} key
 */
export const objectKey = (bucket, key) => bucket + "\u0001" + key;

/**
 * The bucket and key an object's row key names.
 * @param {string} rowKey
 * @returns {[string, string]}
 */
export function splitObjectKey(rowKey) {
  const separator = rowKey.indexOf("\u0001");
  return [rowKey.slice(0, separator), rowKey.slice(separator + 1)];
}

/** The tables of one replica, in memory. */
export class Tables {
  /** @param {Map<TableName, Map<string, any>>} [loaded] What the store held. */
  constructor(loaded) {
    /** @type {Map<TableName, Map<string, any>>} */
    this.tables = new Map(tableNames.map((name) => [name, loaded?.get(name) ?? new Map()]));
  }

  /**
   * @param {TableName} table
   * @returns {Map<string, any>}
   */
  table(table) {
    return /** @type {Map<string, any>} */ (this.tables.get(table));
  }
}

/**
 * One transaction: reads see its own writes, and every write is recorded for the commit and,
 * should the body throw, undone.
 */
export class Transaction {
  /** @param {Tables} tables */
  constructor(tables) {
    this.tables = tables;
    /** @type {Map<TableName, Map<string, unknown>>} What each table's written rows hold now (undefined: deleted). */
    this.written = new Map();
    /** @type {Map<TableName, Map<string, unknown>>} What they held before the transaction. */
    this.before = new Map();
  }

  /**
   * @param {TableName} table
   * @param {string} key
   */
  get(table, key) {
    return this.tables.table(table).get(key);
  }

  /**
   * The rows of a table, in the order they were first written.
   * @param {TableName} table
   * @returns {IterableIterator<[string, any]>}
   */
  rows(table) {
    return this.tables.table(table).entries();
  }

  /**
   * Writes a row; `undefined` deletes it.
   * @param {TableName} table
   * @param {string} key
   * @param {unknown} value
   */
  set(table, key, value) {
    const rows = this.tables.table(table);
    let written = this.written.get(table);
    let before = this.before.get(table);
    if (!written || !before) {
      written = new Map();
      before = new Map();
      this.written.set(table, written);
      this.before.set(table, before);
    }
    if (!before.has(key)) before.set(key, rows.get(key));
    if (value === undefined) rows.delete(key);
    else rows.set(key, value);
    written.set(key, value);
  }

  /**
   * @param {TableName} table
   * @param {string} key
   */
  delete(table, key) {
    if (this.tables.table(table).has(key)) this.set(table, key, undefined);
  }

  /** What the transaction wrote, for the store: a value of undefined deletes the row. */
  get changes() {
    /** @type {Change[]} */
    const changes = [];
    for (const [table, rows] of this.written) for (const [key, value] of rows) changes.push([table, key, value]);
    return changes;
  }

  /** Puts back every row this transaction wrote, as it was. */
  undo() {
    for (const [table, rows] of this.before) {
      const current = this.tables.table(table);
      for (const [key, value] of rows) {
        if (value === undefined) current.delete(key);
        else current.set(key, value);
      }
    }
    this.written.clear();
    this.before.clear();
  }
}
