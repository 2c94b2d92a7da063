// The browser's store: one IndexedDB database per store name, one object store per table, and
// attachment bytes as Blobs. Every commit is one IndexedDB transaction with strict durability
// (flushed before it completes), so a write that resolved survives a reload, a crash of the
// tab, or of the browser.
import { tableNames } from "./tables.js";
import { LockstepError } from "../errors.js";

/** @typedef {import("./tables.js").Change} Change */
/** @typedef {import("./tables.js").TableName} TableName */

const version = 1;
const blobTable = "attachments";

/**
 * @param {IDBRequest | IDBTransaction} request
 * @returns {Promise<any>}
 */
function done(request) {
  return new Promise((resolve, reject) => {
    if ("oncomplete" in request) {
      request.oncomplete = () => resolve(undefined);
      request.onabort = () => reject(request.error ?? new Error("IndexedDB transaction aborted"));
      request.onerror = () => reject(request.error);
    } else {
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    }
  });
}

/** @typedef {import("./store.js").Store} Store */

/** @implements {Store} */
export class IndexedDBStore {
  /**
   * Opens (or creates) the database `lockstep:<name>`.
   * @param {string} name
   * @param {IDBFactory} [factory]
   */
  static async open(name, factory = globalThis.indexedDB) {
    if (!factory) throw new Error("this environment has no IndexedDB: use the memory or file store");
    const release = await lock(name);
    const request = factory.open("lockstep:" + name, version);
    request.onupgradeneeded = () => {
      const database = request.result;
      for (const table of [...tableNames, blobTable]) {
        if (!database.objectStoreNames.contains(table)) database.createObjectStore(table);
      }
    };
    try {
      return new IndexedDBStore(await done(request), release);
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * @param {IDBDatabase} database
   * @param {() => void} release Lets another page open the store.
   */
  constructor(database, release) {
    this.database = database;
    this.release = release;
    this.kind = "indexeddb";
  }

  async load() {
    const transaction = this.database.transaction(tableNames, "readonly");
    const reads = tableNames.map((table) => {
      const store = transaction.objectStore(table);
      return Promise.all([done(store.getAllKeys()), done(store.getAll())]);
    });
    const results = await Promise.all(reads);
    /** @type {Map<TableName, Map<string, any>>} */
    const tables = new Map();
    results.forEach(([keys, values], index) => {
      const rows = new Map();
      keys.forEach((/** @type {string} */ key, /** @type {number} */ at) => rows.set(key, values[at]));
      tables.set(tableNames[index], rows);
    });
    return tables;
  }

  /** @param {Change[]} changes */
  async commit(changes) {
    if (changes.length === 0) return;
    const touched = Array.from(new Set(changes.map(([table]) => table)));
    // Strict: flushed to disk before it completes (Chrome's default lets the OS decide).
    const transaction = this.database.transaction(touched, "readwrite", { durability: "strict" });
    for (const [table, key, value] of changes) {
      const store = transaction.objectStore(table);
      if (value === undefined) store.delete(key);
      else store.put(value, key);
    }
    await done(transaction);
  }

  /** @param {string} name @param {Blob} bytes */
  async putBlob(name, bytes) {
    const transaction = this.database.transaction([blobTable], "readwrite", { durability: "strict" });
    transaction.objectStore(blobTable).put(bytes, name);
    await done(transaction);
  }

  /** @param {string} name @returns {Promise<Blob | null>} */
  async getBlob(name) {
    const transaction = this.database.transaction([blobTable], "readonly");
    return (await done(transaction.objectStore(blobTable).get(name))) ?? null;
  }

  /** @param {string} name */
  async deleteBlob(name) {
    const transaction = this.database.transaction([blobTable], "readwrite");
    transaction.objectStore(blobTable).delete(name);
    await done(transaction);
  }

  async close() {
    this.database.close();
    this.release();
  }
}

/**
 * Holds the store for this page until released: the tables of a store live in the memory of
 * the page that opened it, and a second page writing the same store would undo the first's
 * writes. A page reloading finds the lock of the page it replaces released as that unloads;
 * one opening a store another tab holds is refused after a few seconds, saying so.
 * @param {string} name
 * @returns {Promise<() => void>}
 */
async function lock(name) {
  const locks = globalThis.navigator?.locks;
  if (!locks) return () => {};
  /** @type {() => void} */
  let release = () => {};
  const held = new Promise((resolve) => {
    release = () => resolve(undefined);
  });
  const giveUp = new AbortController();
  const timer = setTimeout(() => giveUp.abort(), 5000);
  try {
    await new Promise((resolve, reject) => {
      locks.request("lockstep:" + name, { signal: giveUp.signal }, () => {
        resolve(undefined);
        return held;
      }).catch(reject);
    });
  } catch {
    throw new LockstepError("store-locked", `the store ${name} is open in another tab or window: one page per store (pass another storeName)`);
  } finally {
    clearTimeout(timer);
  }
  return release;
}
