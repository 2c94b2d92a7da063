// A store that keeps nothing past the process: for tests, scripts and pages that sync only
// while they are open.

/** @typedef {import("./tables.js").Change} Change */
/** @typedef {import("./tables.js").TableName} TableName */

/** @typedef {import("./store.js").Store} Store */

/** @implements {Store} */
export class MemoryStore {
  constructor() {
    /** @type {Map<TableName, Map<string, any>>} */
    this.tables = new Map();
    /** @type {Map<string, Blob>} */
    this.blobs = new Map();
    this.kind = "memory";
  }

  async load() {
    return new Map(Array.from(this.tables, ([name, rows]) => [name, new Map(rows)]));
  }

  /** @param {Change[]} changes */
  async commit(changes) {
    for (const [table, key, value] of changes) {
      let rows = this.tables.get(table);
      if (!rows) this.tables.set(table, (rows = new Map()));
      // Rows are never changed in place once written (every write makes a new row), so the
      // store may hold the replica's own.
      if (value === undefined) rows.delete(key);
      else rows.set(key, value);
    }
  }

  /** @param {string} name @param {Blob} bytes */
  async putBlob(name, bytes) {
    this.blobs.set(name, bytes);
  }

  /** @param {string} name */
  async getBlob(name) {
    return this.blobs.get(name) ?? null;
  }

  /** @param {string} name */
  async deleteBlob(name) {
    this.blobs.delete(name);
  }

  async close() {}
}
