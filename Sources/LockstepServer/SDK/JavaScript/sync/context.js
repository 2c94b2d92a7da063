// What both transports share (the Swift SDK's SyncContext): the replica, the HTTP API, the
// settings, the clock, and the session's state: what the connection does, which buckets are
// caught up on it.
import { receive } from "../replica/remote.js";
import { takeFetched } from "../replica/index-walk.js";
import { forgetBucket } from "../replica/forget.js";
import { spaceOfBucket } from "../spaces/names.js";
import { Wakeup } from "../util/wakeup.js";
import { LockstepError } from "../errors.js";
import { escape } from "./server-api.js";

/** @typedef {import("../replica/replica.js").Replica} Replica */
/** @typedef {import("./server-api.js").ServerAPI} ServerAPI */
/** @typedef {import("../clock/server-clock.js").ServerClock} ServerClock */
/** @typedef {import("../clock/transports.js").SocketClockTransport} SocketClockTransport */
/** @typedef {import("../replica/remote.js").ChangeBatch} ChangeBatch */
/** @typedef {import("../replica/forget.js").SpaceLoss} SpaceLoss */
/**
 * What the sync does: "stopped", "connecting", "streaming" (over the socket), "polling" (over
 * HTTP while the socket cannot be opened) or "unauthorized" (the server refused the token).
 * @typedef {"stopped" | "connecting" | "streaming" | "polling" | "unauthorized"} SyncState
 */
/**
 * @typedef {object} SyncConfiguration
 * @property {number} heartbeatIntervalMs How often a heartbeat goes over the socket; 2.5 intervals of silence drop it.
 * @property {number} backoffInitialMs The bound of the first reconnection delay.
 * @property {number} backoffMaximumMs The largest bound.
 * @property {number} pollingWindowMs How long to sync over HTTP, at least, before trying the socket again.
 * @property {number} indexPageSize Objects per index page on first sync.
 * @property {(new (url: string) => WebSocket) | null} WebSocket The socket class; null syncs over HTTP only.
 */

export class SyncContext {
  /**
   * @param {Replica} replica
   * @param {ServerAPI} api
   * @param {string} socketURL
   * @param {SyncConfiguration} configuration
   * @param {ServerClock} clock
   * @param {SocketClockTransport} clockSocket
   * @param {(loss: SpaceLoss) => void} onSpaceLost
   * @param {(state: SyncState, error?: Error) => void} onState
   */
  constructor(replica, api, socketURL, configuration, clock, clockSocket, onSpaceLost, onState) {
    this.replica = replica;
    this.api = api;
    this.socketURL = socketURL;
    this.configuration = configuration;
    this.clock = clock;
    this.clockSocket = clockSocket;
    this.onSpaceLost = onSpaceLost;
    this.onState = onState;
    /** Signalled whenever the sync makes progress: a bucket caught up, a batch taken in. */
    this.progress = new Wakeup();
    /** @type {SyncState} */
    this.state = "stopped";
    /** @type {Set<string>} Buckets caught up with the server on the current connection. */
    this.live = new Set();
    /** @type {Error | null} Why the last connection attempt failed. */
    this.lastError = null;
  }

  /**
   * @param {SyncState} state
   * @param {Error} [error]
   */
  setState(state, error) {
    const changed = state !== this.state;
    this.state = state;
    if (state !== "streaming" && state !== "polling") this.live.clear();
    this.progress.signal();
    if (changed) this.onState(state, error);
  }

  /** @param {string} bucket */
  isLive(bucket) {
    return this.live.has(bucket);
  }

  /**
   * @param {string} bucket
   * @param {boolean} live
   */
  setLive(bucket, live) {
    const had = this.live.has(bucket);
    if (live) this.live.add(bucket);
    else this.live.delete(bucket);
    if (had !== live) this.progress.signal();
  }

  /**
   * Fetches objects whose ghosts fell out of step, and takes them in whole.
   * @param {string} bucket
   * @param {Set<string>} keys
   */
  async resync(bucket, keys) {
    for (const key of keys) await takeFetched(this.replica, bucket, key, await this.api.object(bucket, key));
  }

  /**
   * Everything that follows from changes the server sent, in one transaction; one outcome a batch.
   * @param {ChangeBatch[]} batches
   */
  async take(batches) {
    const outcomes = await receive(this.replica, batches);
    for (let index = 0; index < batches.length; index++) {
      if (outcomes[index].resync.size > 0) await this.resync(batches[index].bucket, outcomes[index].resync);
    }
    this.progress.signal();
    return outcomes;
  }

  /**
   * `null` while this user is a member of `space`; once they are not, the server's answer
   * (the same as for a space that never was).
   * @param {string} space
   */
  async reasonForLosing(space) {
    const response = await this.api.send("GET", `__spaces__/${escape(space)}`);
    const text = await response.text();
    if (response.status !== 404) {
      if (!response.ok) throw new LockstepError("http", text, response.status);
      return null;
    }
    try {
      return JSON.parse(text).error?.message ?? text;
    } catch {
      return text;
    }
  }

  /**
   * Whether this user lost the space `bucket` belongs to, asked of the server; if so the bucket
   * is forgotten, with `reason` (the one the server gave as it ended the channel). Asked, not
   * assumed: a channel opened while an owner changes this user's role is refused for a moment.
   * @param {string} bucket
   * @param {string} [reason]
   */
  async forgetIfSpaceLost(bucket, reason) {
    const space = spaceOfBucket(bucket);
    if (space === null || (await this.reasonForLosing(space)) === null) return false;
    const loss = await forgetBucket(this.replica, bucket, reason ?? `you are not a member of space ${space}`);
    this.setLive(bucket, false);
    if (loss) this.onSpaceLost(loss);
    this.progress.signal();
    return true;
  }
}

/** Ends a polling session so that the loop starts again at once, with the new set of buckets. */
export class BucketsChanged extends Error {
  constructor() {
    super("the buckets changed");
    this.name = "BucketsChanged";
  }
}
