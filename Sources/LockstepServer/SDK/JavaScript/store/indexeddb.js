// The browser's store: one IndexedDB database per store name, and attachment bytes as Blobs.
// An object's three rows (what the app sees, its ghost, its member stamps) are one record of
// `entries`, so a first sync writes one record an object, not three; the other tables have an
// object store each. Every commit is one IndexedDB transaction with strict durability (flushed
// before it completes), so a write that resolved survives a reload, a crash of the tab, or of
// the browser.
import { tableNames } from "./tables.js";
import { LockstepError } from "../errors.js";

/** @typedef {import("./tables.js").Change} Change */
/** @typedef {import("./tables.js").TableName} TableName */

/** 2: an object's rows in one record of `entries` (1 had a store each for objects, ghosts, stamps). */
const version = 2;
const blobTable = "attachments";
const entryTable = "entries";
/** The tables whose rows are keyed by object, kept together in `entries`. */
const entryTables = /** @type {const} */ (["objects", "ghosts", "stamps"]);
/** The tables that have an object store of their own. */
const ownTables = tableNames.filter((name) => !(/** @type {readonly string[]} */ (entryTables)).includes(name));

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
    request.onupgradeneeded = (event) => {
      const database = request.result;
      for (const table of [...ownTables, entryTable, blobTable]) {
        if (!database.objectStoreNames.contains(table)) database.createObjectStore(table);
      }
      if (event.oldVersion === 1) gatherEntries(/** @type {IDBTransaction} */ (request.transaction));
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
    const stores = [...ownTables, entryTable];
    const transaction = this.database.transaction(stores, "readonly");
    const results = await Promise.all(stores.map((table) => {
      const store = transaction.objectStore(table);
      return Promise.all([done(store.getAllKeys()), done(store.getAll())]);
    }));
    /** @type {Map<TableName, Map<string, any>>} */
    const tables = new Map(tableNames.map((name) => [name, new Map()]));
    results.forEach(([keys, values], index) => {
      const table = stores[index];
      keys.forEach((/** @type {string} */ key, /** @type {number} */ at) => {
        if (table !== entryTable) {
          tables.get(/** @type {TableName} */ (table))?.set(key, values[at]);
          return;
        }
        const entry = values[at];
        if (entry.o !== undefined) tables.get("objects")?.set(key, entry.o);
        if (entry.g !== undefined) tables.get("ghosts")?.set(key, entry.g);
        if (entry.s !== undefined) tables.get("stamps")?.set(key, entry.s);
      });
    });
    return tables;
  }

  /**
   * @param {Change[]} changes
   * @param {import("./tables.js").Tables} tables
   */
  async commit(changes, tables) {
    if (changes.length === 0) return;
    /** @type {Set<string>} */
    const touched = new Set();
    /** @type {Set<string>} */
    const entries = new Set();
    for (const [table, key] of changes) {
      if ((/** @type {readonly string[]} */ (entryTables)).includes(table)) {
        touched.add(entryTable);
        entries.add(key);
      } else {
        touched.add(table);
      }
    }
    // Strict: flushed to disk before it completes (Chrome's default lets the OS decide).
    const transaction = this.database.transaction(Array.from(touched), "readwrite", { durability: "strict" });
    for (const [table, key, value] of changes) {
      if ((/** @type {readonly string[]} */ (entryTables)).includes(table)) continue;
      const store = transaction.objectStore(table);
      if (value === undefined) store.delete(key);
      else store.put(value, key);
    }
    if (entries.size > 0) {
      const store = transaction.objectStore(entryTable);
      const objects = tables.table("objects");
      const ghosts = tables.table("ghosts");
      const stamps = tables.table("stamps");
      for (const key of entries) {
        const entry = { o: objects.get(key), g: ghosts.get(key), s: stamps.get(key) };
        if (entry.o === undefined && entry.g === undefined && entry.s === undefined) store.delete(key);
        else store.put(entry, key);
      }
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
 * Moves a version 1 database's objects, ghosts and stamps (a store each) into `entries`, inside
 * the upgrade's transaction: the upgrade completes with every row moved, or fails and leaves
 * version 1 as it was. Nothing unsent is lost to a page loading a newer lockstep.js.
 * @param {IDBTransaction} upgrade
 */
function gatherEntries(upgrade) {
  /** @type {Map<string, Record<string, unknown>>} */
  const entries = new Map();
  const fields = ["o", "g", "s"];
  let pending = entryTables.length;
  entryTables.forEach((table, index) => {
    const store = upgrade.objectStore(table);
    const keys = store.getAllKeys();
    const values = store.getAll();
    values.onsuccess = () => {
      keys.result.forEach((key, at) => {
        const id = /** @type {string} */ (key);
        const entry = entries.get(id) ?? {};
        entry[fields[index]] = values.result[at];
        entries.set(id, entry);
      });
      pending -= 1;
      if (pending > 0) return;
      const target = upgrade.objectStore(entryTable);
      for (const [id, entry] of entries) target.put(entry, id);
      for (const name of entryTables) upgrade.db.deleteObjectStore(name);
    };
  });
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
