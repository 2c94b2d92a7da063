// A named set of JSON objects that syncs: what an app reads and writes (the Swift SDK's
// Bucket). Writes land in the local store at once (durable when they resolve) and go to the
// server when it can be reached; reads never wait for the network.
import { newChangeID } from "./replica/outbox-rows.js";
import { attach } from "./attachments/attach.js";
import { attachmentOf } from "./attachments/reference.js";
import { LockstepError } from "./errors.js";

/** @typedef {import("./json/value.js").JSONObject} JSONObject */
/** @typedef {import("./events.js").Change} Change */
/** @typedef {import("./attachments/reference.js").Attachment} Attachment */
/** @typedef {"low" | "normal" | "urgent"} Priority */
/** @typedef {import("./client.js").Lockstep} Lockstep */

/** @type {Record<Priority, number>} */
const priorities = { low: -1, normal: 0, urgent: 1 };

/**
 * @param {Priority | undefined} priority
 * @param {Priority} fallback
 */
function priorityValue(priority, fallback) {
  const value = priorities[priority ?? fallback];
  if (value === undefined) throw new TypeError(`priority must be "low", "normal" or "urgent", not ${JSON.stringify(priority)}`);
  return value;
}

/**
 * A bucket: get one with `client.bucket(name)` (or `space.bucket(name)` for a space's). Its
 * `change` events tell of every change of its objects: local writes at once, other devices'
 * as they arrive, refusals as they are rolled back.
 */
export class Bucket extends EventTarget {
  /**
   * @param {Lockstep} client
   * @param {string} name
   * @param {Promise<unknown>} registered Resolves once the store syncs the bucket.
   */
  constructor(client, name, registered) {
    super();
    this.client = client;
    /** The bucket's name, as the server knows it. */
    this.name = name;
    this.registered = registered;
  }

  get replica() {
    return this.client.replica;
  }

  /**
   * The object stored under `key` (a copy), or undefined if there is none (or it was deleted):
   * as this device last wrote or received it, edits not sent yet included.
   * @param {string} key
   */
  get(key) {
    return this.replica.object(this.name, key);
  }

  /** Every object of the bucket, by key, from the local store (deleted ones not listed). */
  list() {
    return this.replica.objects(this.name);
  }

  /**
   * Stores `object` under `key`, creating the object or replacing its data. Only what changed
   * is sent (a jsondiff from the last version the server acknowledged), so concurrent edits of
   * other members elsewhere are kept. Rejects with code "removed" for a key that was deleted.
   * @param {string} key
   * @param {JSONObject} object
   * @param {{ priority?: Priority }} [options] How soon it goes, relative to other objects' changes.
   */
  async put(key, object, options = {}) {
    await this.registered;
    await this.replica.put(this.name, key, object, priorityValue(options.priority, "normal"));
  }

  /**
   * Stores `object` under a new random key (32 hexadecimal digits), and resolves the key.
   * @param {JSONObject} object
   * @param {{ priority?: Priority }} [options]
   */
  async insert(object, options = {}) {
    const key = newChangeID();
    await this.put(key, object, options);
    return key;
  }

  /**
   * Changes the object under `key` in place: `change` gets a copy to edit (or returns a new
   * object), inside the write, so no other write slips in between. Only the members it changes
   * are sent. Rejects with "not-found" when there is no object, "removed" when it was deleted.
   * @param {string} key
   * @param {(object: JSONObject) => JSONObject | void} change
   * @param {{ priority?: Priority }} [options]
   */
  async update(key, change, options = {}) {
    await this.registered;
    await this.replica.update(this.name, key, priorityValue(options.priority, "normal"), change);
  }

  /**
   * Deletes the object under `key` for good: the key cannot be used again. Deleting a deleted
   * object does nothing; rejects with "not-found" when there never was one.
   * @param {string} key
   * @param {{ priority?: Priority }} [options]
   */
  async delete(key, options = {}) {
    await this.registered;
    await this.replica.delete(this.name, key, priorityValue(options.priority, "normal"));
  }

  /**
   * Every change of this bucket's objects from now on, as an async iterator (buffered, never
   * dropped; `break` to stop).
   * @returns {AsyncIterableIterator<Change>}
   */
  changes() {
    return this.replica.changes.stream((change) => change.bucket === this.name);
  }

  /**
   * Stores `bytes` on the device, sets `member` of the object under `key` to refer to them
   * (creating the object if there is none) and queues the upload, below data changes of its
   * priority ("low" by default). The object shows the reference at once; other devices see it
   * once the server holds every byte.
   * @param {Blob} bytes A Blob or File (in Node, `new Blob([buffer])`).
   * @param {{ to: string, member: string, type?: string, priority?: Priority }} options
   * @returns {Promise<Attachment>}
   */
  async attach(bytes, options) {
    await this.registered;
    const type = options.type ?? (bytes.type || "application/octet-stream");
    const attachment = await attach(this.replica, bytes, type, this.name, options.to, options.member, priorityValue(options.priority, "low"));
    // Bytes this user uploaded before are not queued again: done already.
    const upload = this.client.uploads.find((row) => row.sha256 === attachment.sha256);
    this.client.published({
      attachment, direction: "upload", completedBytes: upload ? upload.acknowledged : attachment.size,
      totalBytes: attachment.size, state: upload ? "queued" : "completed", error: null,
    });
    await this.client.attachments.trim();
    return attachment;
  }

  /**
   * The attachment member `member` of the object under `key` refers to, or null.
   * @param {string} member
   * @param {string} key
   */
  attachment(member, key) {
    const object = this.get(key);
    return object ? attachmentOf(object[member]) : null;
  }

  /**
   * The bytes of `attachment`: the device's copy, or downloaded (and kept in the cache).
   * @param {Attachment} attachment
   * @returns {Promise<Blob>}
   */
  data(attachment) {
    return this.client.attachments.data(attachment);
  }

  /**
   * The object's versions the server keeps, newest first, at most `limit` of them (10): each
   * `{ version, data }`. Asks the server; a removed object has none.
   * @param {string} key
   * @param {{ limit?: number }} [options]
   * @returns {Promise<{ version: number, data: JSONObject }[]>}
   */
  async versions(key, options = {}) {
    const limit = options.limit ?? 10;
    if (!Number.isInteger(limit) || limit < 1) throw new TypeError("limit must be a positive integer");
    const api = this.client.api;
    const latest = await api.object(this.name, key);
    if (!latest) return [];
    const older = [];
    for (let version = latest.version - 1; version >= 1 && older.length < limit - 1; version--) older.push(version);
    const fetched = await Promise.all(older.map((version) => api.object(this.name, key, version).catch((error) => {
      if (error instanceof LockstepError && error.status === 404) return null;
      throw error;
    })));
    const versions = [latest];
    for (const entry of fetched) {
      if (!entry) break;
      versions.push(entry);
    }
    return versions;
  }
}
