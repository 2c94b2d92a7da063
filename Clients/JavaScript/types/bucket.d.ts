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
    constructor(client: Lockstep, name: string, registered: Promise<unknown>);
    client: import("./client.js").Lockstep;
    /** The bucket's name, as the server knows it. */
    name: string;
    registered: Promise<unknown>;
    get replica(): import("./replica/replica.js").Replica;
    /**
     * The object stored under `key` (a copy), or undefined if there is none (or it was deleted):
     * as this device last wrote or received it, edits not sent yet included.
     * @param {string} key
     */
    get(key: string): import("./json/value.js").JSONObject | undefined;
    /** Every object of the bucket, by key, from the local store (deleted ones not listed). */
    list(): {
        key: string;
        object: import("./json/value.js").JSONObject;
    }[];
    /**
     * Stores `object` under `key`, creating the object or replacing its data. Only what changed
     * is sent (a jsondiff from the last version the server acknowledged), so concurrent edits of
     * other members elsewhere are kept. Rejects with code "removed" for a key that was deleted.
     * @param {string} key
     * @param {JSONObject} object
     * @param {{ priority?: Priority }} [options] How soon it goes, relative to other objects' changes.
     */
    put(key: string, object: JSONObject, options?: {
        priority?: Priority | undefined;
    } | undefined): Promise<void>;
    /**
     * Stores `object` under a new random key (32 hexadecimal digits), and resolves the key.
     * @param {JSONObject} object
     * @param {{ priority?: Priority }} [options]
     */
    insert(object: JSONObject, options?: {
        priority?: Priority | undefined;
    } | undefined): Promise<string>;
    /**
     * Changes the object under `key` in place: `change` gets a copy to edit (or returns a new
     * object), inside the write, so no other write slips in between. Only the members it changes
     * are sent. Rejects with "not-found" when there is no object, "removed" when it was deleted.
     * @param {string} key
     * @param {(object: JSONObject) => JSONObject | void} change
     * @param {{ priority?: Priority }} [options]
     */
    update(key: string, change: (object: JSONObject) => JSONObject | void, options?: {
        priority?: Priority | undefined;
    } | undefined): Promise<void>;
    /**
     * Deletes the object under `key` for good: the key cannot be used again. Deleting a deleted
     * object does nothing; rejects with "not-found" when there never was one.
     * @param {string} key
     * @param {{ priority?: Priority }} [options]
     */
    delete(key: string, options?: {
        priority?: Priority | undefined;
    } | undefined): Promise<void>;
    /**
     * Every change of this bucket's objects from now on, as an async iterator (buffered, never
     * dropped; `break` to stop).
     * @returns {AsyncIterableIterator<Change>}
     */
    changes(): AsyncIterableIterator<Change>;
    /**
     * Stores `bytes` on the device, sets `member` of the object under `key` to refer to them
     * (creating the object if there is none) and queues the upload, below data changes of its
     * priority ("low" by default). The object shows the reference at once; other devices see it
     * once the server holds every byte.
     * @param {Blob} bytes A Blob or File (in Node, `new Blob([buffer])`).
     * @param {{ to: string, member: string, type?: string, priority?: Priority }} options
     * @returns {Promise<Attachment>}
     */
    attach(bytes: Blob, options: {
        to: string;
        member: string;
        type?: string | undefined;
        priority?: Priority | undefined;
    }): Promise<Attachment>;
    /**
     * The attachment member `member` of the object under `key` refers to, or null.
     * @param {string} member
     * @param {string} key
     */
    attachment(member: string, key: string): import("./attachments/reference.js").Attachment | null;
    /**
     * The bytes of `attachment`: the device's copy, or downloaded (and kept in the cache).
     * @param {Attachment} attachment
     * @returns {Promise<Blob>}
     */
    data(attachment: Attachment): Promise<Blob>;
    /**
     * The object's versions the server keeps, newest first, at most `limit` of them (10): each
     * `{ version, data }`. Asks the server; a removed object has none.
     * @param {string} key
     * @param {{ limit?: number }} [options]
     * @returns {Promise<{ version: number, data: JSONObject }[]>}
     */
    versions(key: string, options?: {
        limit?: number | undefined;
    } | undefined): Promise<{
        version: number;
        data: JSONObject;
    }[]>;
}
export type JSONObject = import("./json/value.js").JSONObject;
export type Change = import("./events.js").Change;
export type Attachment = import("./attachments/reference.js").Attachment;
export type Priority = "low" | "normal" | "urgent";
export type Lockstep = import("./client.js").Lockstep;
