// Keeps a client's buckets in step with the server in the background (the Swift SDK's
// SyncSession): the streaming socket when it opens, HTTP polling while it does not (trying
// the socket again now and then), reconnecting with exponential backoff and full jitter. Local
// writes never wait for any of this: they are in the store and the outbox already.
import { LockstepError } from "../errors.js";
import { BucketsChanged } from "./context.js";
import { SocketSession } from "./socket-session.js";
import { PollingSession } from "./polling-session.js";
import { backoffDelay } from "./frames.js";
import { Wakeup, sleep } from "../util/wakeup.js";

/** @typedef {import("./context.js").SyncContext} SyncContext */
/** @typedef {import("./context.js").SyncState} SyncState */

export class SyncSession {
  /**
   * @param {SyncContext} context
   * @param {(signal: AbortSignal) => Promise<void>} uploads Runs the attachment uploads beside the sync.
   */
  constructor(context, uploads) {
    this.context = context;
    this.uploads = uploads;
    /** @type {AbortController | null} */
    this.running = null;
    /** @type {Promise<unknown> | null} */
    this.task = null;
    /** @type {AbortController | null} The connection under way, which going offline ends. */
    this.attempt = null;
    /** Signalled when the browser says the network came back. */
    this.online = new Wakeup();
  }

  /** What the sync does now. @returns {SyncState} */
  get state() {
    return this.context.state;
  }

  /**
   * Starts syncing every bucket this client opened (now or in an earlier session), in the
   * background; does nothing when started already. Errors never end it: it reconnects, except
   * when the server refuses the token (state "unauthorized").
   */
  start() {
    if (this.running) return;
    const running = new AbortController();
    this.running = running;
    const { signal } = running;
    // A browser that goes offline ends the connection at once (edits wait in the outbox, not in
    // a socket that may never deliver them), and one that comes back reconnects at once.
    const offline = () => this.attempt?.abort();
    const online = () => this.online.signal();
    globalThis.addEventListener?.("offline", offline);
    globalThis.addEventListener?.("online", online);
    signal.addEventListener("abort", () => {
      globalThis.removeEventListener?.("offline", offline);
      globalThis.removeEventListener?.("online", online);
    }, { once: true });
    this.task = Promise.all([
      this.context.clock.run(signal).catch(() => {}),
      this.loop(signal),
      this.uploads(signal).catch(() => {}),
    ]);
  }

  /** Stops syncing and closes the connection; what was not sent stays in the outbox. */
  async stop() {
    const running = this.running;
    this.running = null;
    running?.abort();
    await this.task;
    this.context.setState("stopped");
  }

  /**
   * Resolves once every bucket has caught up, the outbox is empty (refused changes aside) and
   * every queued attachment is on the server (failed ones aside). Rejects with a LockstepError
   * "timed-out" after `timeoutMs`, and "unauthorized" when the server refuses the token.
   * @param {{ timeoutMs?: number }} [options]
   */
  async waitUntilIdle(options = {}) {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      const seen = this.context.progress.generation;
      if (this.context.state === "unauthorized") throw new LockstepError("unauthorized", this.context.lastError?.message ?? "the server refused the token", 401);
      if (this.isIdle()) return;
      const left = deadline - Date.now();
      if (left <= 0) throw new LockstepError("timed-out", "timed out waiting for the sync to become idle");
      const timer = new AbortController();
      await Promise.race([this.context.progress.wait(seen, timer.signal), sleep(Math.min(250, left), timer.signal)]);
      timer.abort();
    }
  }

  isIdle() {
    const replica = this.context.replica;
    return replica.bucketNames().every((bucket) => this.context.live.has(bucket)) && replica.pendingCount() === 0;
  }

  /**
   * Connects, reconnects and falls back to polling, until aborted.
   * @param {AbortSignal} signal
   */
  async loop(signal) {
    const context = this.context;
    const { replica, configuration } = context;
    let attempt = 0;
    while (!signal.aborted) {
      context.setState("connecting");
      if (isOffline()) {
        await this.online.wait(this.online.generation, signal);
        continue;
      }
      const generation = replica.bucketsChanged.generation;
      const buckets = replica.bucketNames();
      if (buckets.length === 0) {
        // Nothing to sync yet: the server closes a socket that opens no channel.
        await replica.bucketsChanged.wait(generation, signal);
        continue;
      }
      let connected = false;
      const connection = new AbortController();
      this.attempt = connection;
      const stop = () => connection.abort();
      signal.addEventListener("abort", stop, { once: true });
      if (configuration.WebSocket) {
        try {
          await new SocketSession(context, buckets, () => {
            if (connected) return;
            connected = true;
            context.setState("streaming");
            // A reconnect may follow a sleep or a network change: measure the clock again.
            context.clock.resync().catch(() => {});
          }).run(connection.signal);
        } catch (error) {
          if (isUnauthorized(error)) return this.refused(/** @type {Error} */ (error));
          context.lastError = /** @type {Error} */ (error);
        }
      }
      if (signal.aborted) return;
      const delay = backoffDelay(attempt, configuration.backoffInitialMs, configuration.backoffMaximumMs);
      if (connected || connection.signal.aborted) {
        // The socket worked and dropped (or the browser went offline): come back soon over it.
        attempt = 0;
        signal.removeEventListener("abort", stop);
        if (!connection.signal.aborted) await this.pause(delay, signal);
        continue;
      }
      attempt += 1;
      context.setState("polling");
      const outcome = await this.poll(buckets, Math.max(delay, configuration.pollingWindowMs), connection.signal);
      signal.removeEventListener("abort", stop);
      if (outcome) return this.refused(outcome);
    }
  }

  /**
   * Waits `milliseconds` before reconnecting, or until the browser says it is online again.
   * @param {number} milliseconds
   * @param {AbortSignal} signal
   */
  async pause(milliseconds, signal) {
    const done = new AbortController();
    const stop = () => done.abort();
    signal.addEventListener("abort", stop, { once: true });
    await Promise.race([sleep(milliseconds, done.signal), this.online.wait(this.online.generation, done.signal)]);
    done.abort();
    signal.removeEventListener("abort", stop);
  }

  /** @param {Error} error */
  refused(error) {
    this.context.lastError = error;
    this.context.setState("unauthorized", error);
  }

  /**
   * Polls until the socket opens (tried every `windowMs`) or polling fails; an error when the
   * session must not go on (the token refused). Polling runs on while the socket is tried.
   * @param {string[]} buckets
   * @param {number} windowMs
   * @param {AbortSignal} signal
   * @returns {Promise<Error | null>}
   */
  async poll(buckets, windowMs, signal) {
    const context = this.context;
    const deadline = Date.now() + windowMs;
    const polling = new AbortController();
    const stop = () => polling.abort();
    signal.addEventListener("abort", stop, { once: true });
    const trySocket = async () => {
      if (!context.configuration.WebSocket) return new Promise(() => {});
      do {
        if (!(await sleep(windowMs, polling.signal))) return;
      } while (!(await SocketSession.opens(context)));
      polling.abort();
    };
    try {
      await Promise.race([new PollingSession(context, buckets).run(polling.signal), trySocket()]);
    } catch (error) {
      if (isUnauthorized(error)) return /** @type {Error} */ (error);
      if (!(error instanceof BucketsChanged)) context.lastError = /** @type {Error} */ (error);
      else return null;
    } finally {
      polling.abort();
      signal.removeEventListener("abort", stop);
    }
    // Failed early (the server is down too): wait out the window before the next attempt.
    if (Date.now() < deadline) await sleep(deadline - Date.now(), signal);
    return null;
  }
}

/** Whether the browser says there is no network (never so in Node). */
const isOffline = () => globalThis.navigator?.onLine === false;

/** @param {unknown} error */
const isUnauthorized = (error) => error instanceof LockstepError && error.code === "unauthorized";
