// A device's connection to a Lockstep (or Simperium-compatible) server: buckets of JSON
// objects that work offline and stay in step with every other device, the server's clock,
// spaces and attachments (the Swift SDK's LockstepClient).
import { Replica } from "./replica/replica.js";
import { Bucket } from "./bucket.js";
import { Outbox } from "./outbox.js";
import { Space, forgetSpace } from "./spaces/space.js";
import { validateSpaceName } from "./spaces/names.js";
import { ServerAPI } from "./sync/server-api.js";
import { SyncContext } from "./sync/context.js";
import { SyncSession } from "./sync/sync-session.js";
import { ServerClock } from "./clock/server-clock.js";
import { HTTPClockTransport, SocketClockTransport } from "./clock/transports.js";
import { BlobAPI } from "./attachments/blob-api.js";
import { Uploader } from "./attachments/uploader.js";
import { AttachmentCache } from "./attachments/cache.js";
import { uploads } from "./attachments/records.js";
import { MemoryStore } from "./store/memory.js";
import { IndexedDBStore } from "./store/indexeddb.js";
import { ChangeEvent, DetailEvent } from "./events.js";
import { Broadcast } from "./util/stream.js";
import { LockstepError } from "./errors.js";

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
  static async open(options) {
    for (const name of /** @type {const} */ (["server", "app", "token"])) {
      if (typeof options?.[name] !== "string" || options[name] === "") throw new TypeError(`Lockstep.open needs a string ${name}`);
    }
    const server = options.server.replace(/\/+$/, "");
    const fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
    const clockSocket = new SocketClockTransport(new HTTPClockTransport(server, fetcher));
    const clock = new ServerClock(clockSocket);
    const store = await openStore(options, server);
    const source = options.editTimes ?? "server";
    const editTimes = typeof source === "function" ? source : source === "none" ? () => null : () => clock.serverTimeNow();
    let replica;
    try {
      replica = await Replica.open(store, editTimes);
      await claimStore(replica, server, options.app);
    } catch (error) {
      await store.close();
      throw error;
    }
    return new Lockstep(options, server, fetcher, store, replica, clock, clockSocket);
  }

  /**
   * @param {LockstepOptions} options
   * @param {string} server
   * @param {typeof fetch} fetcher
   * @param {Store} store
   * @param {Replica} replica
   * @param {ServerClock} clock
   * @param {SocketClockTransport} clockSocket
   */
  constructor(options, server, fetcher, store, replica, clock, clockSocket) {
    super();
    this.store = store;
    this.replica = replica;
    /** The server's time, calibrated while the client syncs; it stamps every edit. */
    this.clock = clock;
    /** The changes on their way to the server. */
    this.outbox = new Outbox(replica);
    this.api = new ServerAPI(server, options.app, options.token, replica.clientID, fetcher);
    /** @type {Broadcast<TransferProgress>} */
    this.transfersHub = new Broadcast();
    /** @type {Broadcast<SpaceLoss>} */
    this.lossesHub = new Broadcast();
    /** @type {Map<string, Bucket>} */
    this.buckets = new Map();
    const blobs = new BlobAPI(this.api);
    const backoff = options.backoff ?? { initialMs: 500, maximumMs: 30_000 };
    this.attachments = new AttachmentCache(replica, blobs, options.attachmentCacheSize ?? 512 * 2 ** 20, (progress) => this.published(progress));
    const uploader = new Uploader(replica, blobs, options.uploadChunkSize ?? 2 * 2 ** 20, (progress) => this.published(progress), backoff);
    const socketURL = options.socketURL ?? server.replace(/^http/, "ws") + `/sock/1/${encodeURIComponent(options.app)}/websocket`;
    const context = new SyncContext(replica, this.api, socketURL, {
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 10_000,
      backoffInitialMs: backoff.initialMs,
      backoffMaximumMs: backoff.maximumMs,
      pollingWindowMs: options.pollingWindowMs ?? 5_000,
      indexPageSize: options.indexPageSize ?? 1000,
      WebSocket: options.WebSocket === undefined ? globalThis.WebSocket ?? null : options.WebSocket,
    }, clock, clockSocket, (loss) => this.lost(loss), (state, error) => this.dispatchEvent(new DetailEvent("statechange", { state, error })));
    /** The background sync with the server: `start()`, `stop()`, `waitUntilIdle()`, `state`. */
    this.sync = new SyncSession(context, (signal) => uploader.run(signal));
    this.closed = false;
    this.unsubscribe = this.forward();
  }

  /** This client's id on the server (`clientid`), made once and kept in the store. */
  get clientID() {
    return this.replica.clientID;
  }

  /** Dispatches every change as a `change` event of the client and of its bucket. */
  forward() {
    const stream = this.replica.changes.stream();
    (async () => {
      for await (const change of stream) {
        this.buckets.get(change.bucket)?.dispatchEvent(new ChangeEvent(change));
        this.dispatchEvent(new ChangeEvent(change));
      }
    })();
    return () => stream.return();
  }

  /**
   * The bucket named `name`: it syncs from now on, and in later sessions. Cheap, and needs no
   * network: call it wherever a bucket is needed.
   * @param {string} name
   */
  bucket(name) {
    if (typeof name !== "string" || name === "") throw new TypeError("a bucket needs a name");
    let bucket = this.buckets.get(name);
    const registered = this.replica.register(name);
    if (!bucket) {
      bucket = new Bucket(this, name, registered);
      this.buckets.set(name, bucket);
    } else {
      bucket.registered = registered;
    }
    return bucket;
  }

  /** The names of the buckets this store syncs. */
  get bucketNames() {
    return this.replica.bucketNames();
  }

  /**
   * The space named `name`, to make, share or open the buckets of. Throws a SpaceError
   * "invalid" for a name that breaks the rule (1 to 64 of `a-z 0-9 _ -`).
   * @param {string} name
   */
  space(name) {
    validateSpaceName(name);
    return new Space(this, name);
  }

  /**
   * The spaces this user is a member of, with their role in each (the admin token: every space).
   * @returns {Promise<{ name: string, role: "reader" | "writer" | "owner" | null }[]>}
   */
  async spaces() {
    const answer = JSON.parse(await this.api.json("GET", "__spaces__"));
    if (!Array.isArray(answer)) throw new LockstepError("protocol", "the list of spaces is not a list");
    return answer.map((listed) => ({ name: listed.name, role: listed.role ?? null }));
  }

  /**
   * Forgets every bucket of `space` here (after leaving or deleting it).
   * @param {string} space
   * @param {string} reason
   */
  async forgetSpace(space, reason) {
    for (const loss of await forgetSpace(this.replica, space, reason)) this.lost(loss);
  }

  /** @param {SpaceLoss} loss */
  lost(loss) {
    this.lossesHub.publish(loss);
    this.dispatchEvent(new DetailEvent("spacelost", loss));
  }

  /**
   * Every space bucket this user loses from now on, as the client forgets it.
   * @returns {AsyncIterableIterator<SpaceLoss>}
   */
  lostSpaces() {
    return this.lossesHub.stream();
  }

  /**
   * The options of bucket `name` as the app's admin set them, asked of the server now:
   * `{ shared, readOnly, presence, json }`. Objects a streaming connection inserts into a
   * presence bucket are deleted when that connection (or its user's last) goes away.
   * @param {string} name
   */
  async options(name) {
    const json = await this.api.options(name);
    const presence = json.presence === "client" || json.presence === "user" ? json.presence : null;
    return { shared: json.shared === true, readOnly: json.read_only === true, presence, json };
  }

  /** @param {TransferProgress} progress */
  published(progress) {
    this.transfersHub.publish(progress);
    this.dispatchEvent(new DetailEvent("transfer", progress));
  }

  /**
   * Every attachment transfer's progress from now on (the newest 256 kept for a slow reader).
   * @returns {AsyncIterableIterator<TransferProgress>}
   */
  transfers() {
    return this.transfersHub.stream(() => true, 256);
  }

  /**
   * The progress of one attachment's transfers from now on.
   * @param {Attachment} attachment
   * @returns {AsyncIterableIterator<TransferProgress>}
   */
  progress(attachment) {
    return this.transfersHub.stream((progress) => progress.attachment.sha256 === attachment.sha256, 256);
  }

  /** The upload queue: `{ sha256, priority, acknowledged, error }`, highest priority first. */
  get uploads() {
    return this.replica.read(uploads).map((row) => ({ ...row }));
  }

  /**
   * Every change of every bucket from now on, as an async iterator.
   * @returns {AsyncIterableIterator<Change>}
   */
  changes() {
    return this.replica.changes.stream();
  }

  /**
   * Stops syncing, ends every event stream, and closes the store; what was not sent stays in
   * the outbox for the next session (`sync.waitUntilIdle()` first to send it now).
   */
  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.sync.stop();
    this.unsubscribe();
    this.replica.changes.finish();
    this.transfersHub.finish();
    this.lossesHub.finish();
    await this.store.close();
  }
}

/**
 * @param {LockstepOptions} options
 * @param {string} server
 * @returns {Promise<Store>}
 */
async function openStore(options, server) {
  const choice = options.store ?? (globalThis.indexedDB ? "indexeddb" : "memory");
  if (choice === "memory") return new MemoryStore();
  if (choice === "indexeddb") return IndexedDBStore.open(options.storeName ?? `${options.app}@${new URL(server).host}`);
  if ("directory" in choice) {
    const { FileStore } = await import("./store/file.js");
    return FileStore.open(choice.directory);
  }
  return choice;
}

/**
 * Records which server and app the store belongs to, and refuses a store of another: its
 * objects, outbox and cursors mean nothing there.
 * @param {Replica} replica
 * @param {string} server
 * @param {string} app
 */
async function claimStore(replica, server, app) {
  const owner = `${app} on ${server}`;
  const recorded = replica.tables.table("meta").get("owner");
  if (recorded !== undefined && recorded !== owner) {
    throw new LockstepError("store-failed", `this store belongs to ${recorded}, not ${owner}: open another store for it`);
  }
  if (recorded === undefined) await replica.write((tx) => tx.set("meta", "owner", owner));
}
