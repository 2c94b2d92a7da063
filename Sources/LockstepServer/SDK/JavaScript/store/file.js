// Node's durable store: a directory holding a snapshot of the tables (state.json), a log of the
// commits since (log.jsonl, one commit a line, flushed before the commit resolves), and the
// attachment bytes as files. A commit cut short by a crash leaves a partial last line, which
// the next open ignores: commits are all or nothing. The log is folded into a new snapshot
// (written aside, flushed, renamed) when the store opens and when the log grows large.
import { tableNames } from "./tables.js";

/** @typedef {import("./tables.js").Change} Change */
/** @typedef {import("./tables.js").TableName} TableName */

/** Log bytes past which the next commit folds the log into the snapshot. */
const compactionThreshold = 8 << 20;

/** Writes bigint values (edit times) as {"$bigint": "…"}, which JSON cannot hold as they are. */
const replacer = (/** @type {string} */ _key, /** @type {unknown} */ value) =>
  typeof value === "bigint" ? { $bigint: value.toString() } : value;
const reviver = (/** @type {string} */ _key, /** @type {any} */ value) =>
  value && typeof value === "object" && typeof value.$bigint === "string" && Object.keys(value).length === 1
    ? BigInt(value.$bigint) : value;

/** @typedef {import("./store.js").Store} Store */

/** @implements {Store} */
export class FileStore {
  /**
   * Opens (or creates) the store in `directory`.
   * @param {string} directory
   */
  static async open(directory) {
    const fs = await import("node:fs/promises");
    const path = await import("node:path");
    await fs.mkdir(path.join(directory, "attachments"), { recursive: true, mode: 0o700 });
    const store = new FileStore(directory, fs, path);
    await store.lock();
    await store.compact(await store.read());
    return store;
  }

  /**
   * Takes the directory for this process: a second process (or client) on one store would
   * overwrite the first's commits. A lock left by a process that died is taken over.
   */
  async lock() {
    const lockFile = this.file("lock");
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await this.fs.open(lockFile, "wx", 0o600);
        await handle.writeFile(String(process.pid));
        await handle.close();
        this.locked = true;
        return;
      } catch (error) {
        if (/** @type {any} */ (error).code !== "EEXIST") throw error;
      }
      const holder = Number(await this.fs.readFile(lockFile, "utf8").catch(() => "0"));
      if (holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new Error(`the store in ${this.directory} is open in process ${holder}: one client per store directory`);
      }
      await this.fs.rm(lockFile, { force: true });
    }
    throw new Error(`could not lock the store in ${this.directory}`);
  }

  /**
   * @param {string} directory
   * @param {typeof import("node:fs/promises")} fs
   * @param {typeof import("node:path")} path
   */
  constructor(directory, fs, path) {
    this.directory = directory;
    this.fs = fs;
    this.path = path;
    this.kind = "file";
    this.locked = false;
    /** @type {import("node:fs/promises").FileHandle | null} */
    this.log = null;
    this.logBytes = 0;
    /** Commits run one after another, in the order they were asked for. */
    /** @type {Promise<unknown>} */
    this.queue = Promise.resolve();
    /** @type {Map<TableName, Map<string, any>>} */
    this.snapshot = new Map();
  }

  /** @param {string} name */
  file(name) {
    return this.path.join(this.directory, name);
  }

  /** The snapshot with the log's complete commits applied. */
  async read() {
    /** @type {Map<TableName, Map<string, any>>} */
    const tables = new Map(tableNames.map((name) => [name, new Map()]));
    try {
      const snapshot = JSON.parse(await this.fs.readFile(this.file("state.json"), "utf8"), reviver);
      for (const name of tableNames) for (const [key, value] of snapshot[name] ?? []) tables.get(name)?.set(key, value);
    } catch (error) {
      if (/** @type {any} */ (error).code !== "ENOENT") throw error;
    }
    let log = "";
    try {
      log = await this.fs.readFile(this.file("log.jsonl"), "utf8");
    } catch (error) {
      if (/** @type {any} */ (error).code !== "ENOENT") throw error;
    }
    const lines = log.split("\n");
    lines.forEach((line, index) => {
      if (line === "") return;
      let changes;
      try {
        changes = JSON.parse(line, reviver);
      } catch (error) {
        // Only the last line can be partial: a commit cut short by a crash, never acknowledged.
        if (index === lines.length - 1 || (index === lines.length - 2 && lines[lines.length - 1] === "")) return;
        throw new Error(`${this.file("log.jsonl")} line ${index + 1} is damaged: ${/** @type {Error} */ (error).message}`);
      }
      for (const [table, key, value] of changes) {
        if (value === null) tables.get(table)?.delete(key);
        else tables.get(table)?.set(key, value);
      }
    });
    return tables;
  }

  /**
   * Writes `tables` as the new snapshot and starts an empty log.
   * @param {Map<TableName, Map<string, any>>} tables
   */
  async compact(tables) {
    if (this.log) await this.log.close();
    /** @type {Record<string, [string, any][]>} */
    const snapshot = {};
    for (const [name, rows] of tables) snapshot[name] = Array.from(rows);
    const temporary = this.file("state.json.tmp");
    const handle = await this.fs.open(temporary, "w", 0o600);
    await handle.writeFile(JSON.stringify(snapshot, replacer));
    await handle.sync();
    await handle.close();
    await this.fs.rename(temporary, this.file("state.json"));
    await this.syncDirectory();
    this.log = await this.fs.open(this.file("log.jsonl"), "w", 0o600);
    await this.log.sync();
    this.logBytes = 0;
    this.snapshot = tables;
  }

  async syncDirectory() {
    const directory = await this.fs.open(this.directory, "r");
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  }

  async load() {
    return new Map(Array.from(this.snapshot, ([name, rows]) => [name, new Map(rows)]));
  }

  /** @param {Change[]} changes */
  commit(changes) {
    const run = this.queue.then(() => this.append(changes));
    this.queue = run.catch(() => {});
    return run;
  }

  /** @param {Change[]} changes */
  async append(changes) {
    if (changes.length === 0) return;
    const line = JSON.stringify(changes.map(([table, key, value]) => [table, key, value === undefined ? null : value]), replacer) + "\n";
    const log = /** @type {import("node:fs/promises").FileHandle} */ (this.log);
    await log.write(line);
    await log.datasync();
    this.logBytes += line.length;
    for (const [table, key, value] of changes) {
      const rows = this.snapshot.get(table);
      if (value === undefined) rows?.delete(key);
      else rows?.set(key, JSON.parse(JSON.stringify(value, replacer), reviver));
    }
    if (this.logBytes > compactionThreshold) await this.compact(this.snapshot);
  }

  /** @param {string} name */
  blobFile(name) {
    if (!/^[0-9a-f]{64}$/.test(name)) throw new Error(`not an attachment name: ${name}`);
    return this.path.join(this.directory, "attachments", name);
  }

  /** @param {string} name @param {Blob} bytes */
  async putBlob(name, bytes) {
    const temporary = this.blobFile(name) + ".tmp";
    const handle = await this.fs.open(temporary, "w", 0o600);
    await handle.writeFile(new Uint8Array(await bytes.arrayBuffer()));
    await handle.sync();
    await handle.close();
    await this.fs.rename(temporary, this.blobFile(name));
    await this.syncDirectory();
  }

  /** @param {string} name @returns {Promise<Blob | null>} */
  async getBlob(name) {
    try {
      return new Blob([await this.fs.readFile(this.blobFile(name))]);
    } catch (error) {
      if (/** @type {any} */ (error).code === "ENOENT") return null;
      throw error;
    }
  }

  /** @param {string} name */
  async deleteBlob(name) {
    await this.fs.rm(this.blobFile(name), { force: true });
  }

  async close() {
    await this.queue;
    await this.log?.close();
    this.log = null;
    if (this.locked) await this.fs.rm(this.file("lock"), { force: true });
    this.locked = false;
  }
}

/**
 * Whether process `pid` runs.
 * @param {number} pid
 */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {any} */ (error).code === "EPERM";
  }
}
