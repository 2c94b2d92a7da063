/** @typedef {import("./store/store.js").Store} Store */
/** @typedef {import("./events.js").Change} Change */
/** @typedef {import("./attachments/uploader.js").TransferProgress} TransferProgress */
/** @typedef {import("./attachments/reference.js").Attachment} Attachment */
/** @typedef {import("./replica/forget.js").SpaceLoss} SpaceLoss */
/** @typedef {import("./sync/context.js").SyncState} SyncState */
/**
 * How to open a client. Only `server`, `app` and `token` are needed.
 * @typedef {object} LockstepOptions
 * @property {string} server The server's URL, e.g. "https://sync.example.com".
 * @property {string} app The app's id on the server.
 * @property {string} token The user's access token.
 * @property {"indexeddb" | "memory" | Store | { directory: string }} [store] Where the replica lives:
 *   IndexedDB in a browser (the default there), memory (the default elsewhere), a directory in
 *   Node (`{ directory }`), or a Store of your own.
 * @property {string} [storeName] The IndexedDB database's name (after "lockstep:"); one per user
 *   and server: by default `<app>@<server's host>`, so pass one (the username) when users switch.
 * @property {string} [socketURL] The streaming endpoint; by default `ws(s)://<server>/sock/1/<app>/websocket`.
 * @property {(new (url: string) => WebSocket) | null} [WebSocket] The socket class (globalThis.WebSocket
 *   by default); null syncs over HTTP only.
 * @property {typeof fetch} [fetch] The fetch to use (globalThis.fetch by default).
 * @property {"server" | "none" | (() => bigint | null)} [editTimes] Stamp edits with the server's clock
 *   (the default), send none (the server then orders this client's changes by arrival), or take
 *   them from a function of your own (nanoseconds since the epoch on the server's clock).
 * @property {number} [heartbeatIntervalMs] How often a heartbeat goes over the socket (10 s).
 * @property {number} [pollingWindowMs] How long to sync over HTTP before trying the socket again (5 s).
 * @property {number} [indexPageSize] Objects per index page on first sync (1000).
 * @property {number} [attachmentCacheSize] The most bytes of downloaded attachments kept (512 MiB).
 * @property {number} [uploadChunkSize] Bytes per upload request (2 MiB).
 * @property {{ initialMs: number, maximumMs: number }} [backoff] Reconnection delays (500 ms doubling to 30 s, jittered).
 */
/**
 * A client: open one with `await Lockstep.open({ server, app, token })`, then `client.sync.start()`.
 *
 * ```js
 * const client = await Lockstep.open({ server: "https://sync.example.com", app: "my-app", token });
 * const notes = client.bucket("notes");
 * await notes.put("groceries", { title: "Groceries" });   // durable now, synced when it can be
 * client.sync.start();
 * notes.addEventListener("change", (event) => console.log(event.kind, event.key, event.origin.type));
 * ```
 *
 * Events: `change` (a ChangeEvent, for every bucket), `statechange` (the sync's state in
 * `detail`), `transfer` (an attachment's progress), `spacelost` (a space this user lost).
 */
export class Lockstep extends EventTarget {
    /**
     * Opens (or creates) the local store and the client; nothing touches the network until
     * `sync.start()`.
     * @param {LockstepOptions} options
     */
    static open(options: LockstepOptions): Promise<Lockstep>;
    /**
     * @param {LockstepOptions} options
     * @param {string} server
     * @param {typeof fetch} fetcher
     * @param {Store} store
     * @param {Replica} replica
     * @param {ServerClock} clock
     * @param {SocketClockTransport} clockSocket
     */
    constructor(options: LockstepOptions, server: string, fetcher: typeof fetch, store: Store, replica: Replica, clock: ServerClock, clockSocket: SocketClockTransport);
    store: import("./store/store.js").Store;
    replica: Replica;
    /** The server's time, calibrated while the client syncs; it stamps every edit. */
    clock: ServerClock;
    /** The changes on their way to the server. */
    outbox: Outbox;
    api: ServerAPI;
    /** @type {Broadcast<TransferProgress>} */
    transfersHub: Broadcast<TransferProgress>;
    /** @type {Broadcast<SpaceLoss>} */
    lossesHub: Broadcast<SpaceLoss>;
    /** @type {Map<string, Bucket>} */
    buckets: Map<string, Bucket>;
    attachments: AttachmentCache;
    /** The background sync with the server: `start()`, `stop()`, `waitUntilIdle()`, `state`. */
    sync: SyncSession;
    closed: boolean;
    unsubscribe: () => Promise<IteratorResult<import("./events.js").Change, any>>;
    /** This client's id on the server (`clientid`), made once and kept in the store. */
    get clientID(): string;
    /** Dispatches every change as a `change` event of the client and of its bucket. */
    forward(): () => Promise<IteratorResult<import("./events.js").Change, any>>;
    /**
     * The bucket named `name`: it syncs from now on, and in later sessions. Cheap, and needs no
     * network: call it wherever a bucket is needed.
     * @param {string} name
     */
    bucket(name: string): Bucket;
    /** The names of the buckets this store syncs. */
    get bucketNames(): string[];
    /**
     * The space named `name`, to make, share or open the buckets of. Throws a SpaceError
     * "invalid" for a name that breaks the rule (1 to 64 of `a-z 0-9 _ -`).
     * @param {string} name
     */
    space(name: string): Space;
    /**
     * The spaces this user is a member of, with their role in each (the admin token: every space).
     * @returns {Promise<{ name: string, role: "reader" | "writer" | "owner" | null }[]>}
     */
    spaces(): Promise<{
        name: string;
        role: "reader" | "writer" | "owner" | null;
    }[]>;
    /**
     * Forgets every bucket of `space` here (after leaving or deleting it).
     * @param {string} space
     * @param {string} reason
     */
    forgetSpace(space: string, reason: string): Promise<void>;
    /** @param {SpaceLoss} loss */
    lost(loss: SpaceLoss): void;
    /**
     * Every space bucket this user loses from now on, as the client forgets it.
     * @returns {AsyncIterableIterator<SpaceLoss>}
     */
    lostSpaces(): AsyncIterableIterator<SpaceLoss>;
    /**
     * The options of bucket `name` as the app's admin set them, asked of the server now:
     * `{ shared, readOnly, presence, json }`. Objects a streaming connection inserts into a
     * presence bucket are deleted when that connection (or its user's last) goes away.
     * @param {string} name
     */
    options(name: string): Promise<{
        shared: boolean;
        readOnly: boolean;
        presence: string | null;
        json: import("./json/value.js").JSONObject;
    }>;
    /** @param {TransferProgress} progress */
    published(progress: TransferProgress): void;
    /**
     * Every attachment transfer's progress from now on (the newest 256 kept for a slow reader).
     * @returns {AsyncIterableIterator<TransferProgress>}
     */
    transfers(): AsyncIterableIterator<TransferProgress>;
    /**
     * The progress of one attachment's transfers from now on.
     * @param {Attachment} attachment
     * @returns {AsyncIterableIterator<TransferProgress>}
     */
    progress(attachment: Attachment): AsyncIterableIterator<TransferProgress>;
    /** The upload queue: `{ sha256, priority, acknowledged, error }`, highest priority first. */
    get uploads(): {
        sha256: string;
        priority: number;
        /**
         * Its place in the queue.
         */
        seq: number;
        /**
         * The server's URL for it, once created.
         */
        location: string | null;
        /**
         * The bytes the server confirmed.
         */
        acknowledged: number;
        /**
         * How often the server discarded it (a hash mismatch).
         */
        restarts: number;
        /**
         * Why it stopped for good.
         */
        error: {
            code: string;
            message: string;
        } | null;
    }[];
    /**
     * Every change of every bucket from now on, as an async iterator.
     * @returns {AsyncIterableIterator<Change>}
     */
    changes(): AsyncIterableIterator<Change>;
    /**
     * Stops syncing, ends every event stream, and closes the store; what was not sent stays in
     * the outbox for the next session (`sync.waitUntilIdle()` first to send it now).
     */
    close(): Promise<void>;
}
export type Store = import("./store/store.js").Store;
export type Change = import("./events.js").Change;
export type TransferProgress = import("./attachments/uploader.js").TransferProgress;
export type Attachment = import("./attachments/reference.js").Attachment;
export type SpaceLoss = import("./replica/forget.js").SpaceLoss;
export type SyncState = import("./sync/context.js").SyncState;
/**
 * How to open a client. Only `server`, `app` and `token` are needed.
 */
export type LockstepOptions = {
    /**
     * The server's URL, e.g. "https://sync.example.com".
     */
    server: string;
    /**
     * The app's id on the server.
     */
    app: string;
    /**
     * The user's access token.
     */
    token: string;
    /**
     * Where the replica lives:
     * IndexedDB in a browser (the default there), memory (the default elsewhere), a directory in
     * Node (`{ directory }`), or a Store of your own.
     */
    store?: "memory" | import("./store/store.js").Store | "indexeddb" | {
        directory: string;
    } | undefined;
    /**
     * The IndexedDB database's name (after "lockstep:"); one per user
     * and server: by default `<app>@<server's host>`, so pass one (the username) when users switch.
     */
    storeName?: string | undefined;
    /**
     * The streaming endpoint; by default `ws(s)://<server>/sock/1/<app>/websocket`.
     */
    socketURL?: string | undefined;
    /**
     * The socket class (globalThis.WebSocket
     * by default); null syncs over HTTP only.
     */
    WebSocket?: (new (url: string) => WebSocket) | null | undefined;
    /**
     * The fetch to use (globalThis.fetch by default).
     */
    fetch?: typeof fetch | undefined;
    /**
     * Stamp edits with the server's clock
     * (the default), send none (the server then orders this client's changes by arrival), or take
     * them from a function of your own (nanoseconds since the epoch on the server's clock).
     */
    editTimes?: "none" | "server" | (() => bigint | null) | undefined;
    /**
     * How often a heartbeat goes over the socket (10 s).
     */
    heartbeatIntervalMs?: number | undefined;
    /**
     * How long to sync over HTTP before trying the socket again (5 s).
     */
    pollingWindowMs?: number | undefined;
    /**
     * Objects per index page on first sync (1000).
     */
    indexPageSize?: number | undefined;
    /**
     * The most bytes of downloaded attachments kept (512 MiB).
     */
    attachmentCacheSize?: number | undefined;
    /**
     * Bytes per upload request (2 MiB).
     */
    uploadChunkSize?: number | undefined;
    /**
     * Reconnection delays (500 ms doubling to 30 s, jittered).
     */
    backoff?: {
        initialMs: number;
        maximumMs: number;
    } | undefined;
};
import { Replica } from "./replica/replica.js";
import { ServerClock } from "./clock/server-clock.js";
import { Outbox } from "./outbox.js";
import { ServerAPI } from "./sync/server-api.js";
import { Broadcast } from "./util/stream.js";
import { Bucket } from "./bucket.js";
import { AttachmentCache } from "./attachments/cache.js";
import { SyncSession } from "./sync/sync-session.js";
import { Space } from "./spaces/space.js";
import { SocketClockTransport } from "./clock/transports.js";
