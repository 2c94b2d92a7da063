// One connection over the streaming protocol (`/sock/1/{app}/websocket`), one channel per
// bucket, until it drops (the Swift SDK's SocketSession). Per channel: `init` with the token,
// then an index walk (`i:1:<mark>::<limit>`) on first sync or `cv:<cursor>` to catch up; once
// caught up the outbox flows, one change in flight per object. Heartbeats go out every
// interval, and a connection silent for 2.5 intervals is dropped. Frames that arrive while the
// session writes are taken together: a run of changes on live channels is one transaction.
import { LockstepError } from "../errors.js";
import { serialize } from "../json/serialize.js";
import { parseFrame } from "./frames.js";
import { readChanges } from "./remote-change.js";
import { position, readIndexPage, restartIndex, setOptions, takeIndexPage } from "../replica/index-walk.js";
import { outgoingByChangeIDs, takeOutgoing } from "../replica/outgoing.js";
import { spaceOfBucket } from "../spaces/names.js";
import { sleep } from "../util/wakeup.js";

/** @typedef {import("./context.js").SyncContext} SyncContext */
/** @typedef {import("./frames.js").Frame} Frame */
/** @typedef {import("../replica/remote.js").ReceiveOutcome} ReceiveOutcome */
/** @typedef {import("../replica/remote.js").ChangeBatch} ChangeBatch */
/** @typedef {"authorizing" | "reopening" | "indexing" | "catchingUp" | "live" | "forgotten"} Phase */

/** The most changes the server sends in answer to one `cv:`: a full batch means more wait. */
const catchUpPage = 100;

/** The server went silent, or closed the socket. */
class Dropped extends LockstepError {
  /** @param {string} message */
  constructor(message) {
    super("network", message);
  }
}

export class SocketSession {
  /**
   * @param {SyncContext} context
   * @param {string[]} buckets The buckets the store synced when the socket opened.
   * @param {() => void} onConnected Called once the server accepted the token on a channel.
   */
  constructor(context, buckets, onConnected) {
    this.context = context;
    this.channels = buckets.slice();
    /** @type {Phase[]} */
    this.phases = buckets.map(() => "authorizing");
    /** @type {(string | null)[]} The reason the server gave as it ended a channel that is reopening. */
    this.reopenReasons = buckets.map(() => null);
    this.onConnected = onConnected;
    /** @type {string[]} */
    this.inbound = [];
    /** @type {(() => void) | null} */
    this.wakeReader = null;
    /** @type {((text: string) => void) | null} Writes one text frame while the socket is open. */
    this.send = null;
  }

  /** How long the server may take to answer the upgrade (as long as an open socket may be silent). */
  get upgradeLimitMs() {
    return this.context.configuration.heartbeatIntervalMs * 2.5;
  }

  /**
   * Whether the socket opens now: a handshake, closed at once.
   * @param {SyncContext} context
   */
  static async opens(context) {
    const Socket = context.configuration.WebSocket;
    if (!Socket) return false;
    try {
      const socket = await open(Socket, context.socketURL, context.configuration.heartbeatIntervalMs * 2.5);
      socket.close(1000);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Runs the connection until it drops (rejects), or `signal` aborts (resolves).
   * @param {AbortSignal} signal
   */
  async run(signal) {
    const Socket = this.context.configuration.WebSocket;
    if (!Socket) throw new LockstepError("network", "no WebSocket in this environment");
    const socket = await open(Socket, this.context.socketURL, this.upgradeLimitMs, signal);
    const session = new AbortController();
    const stop = () => session.abort();
    signal.addEventListener("abort", stop, { once: true });
    /** @type {(error: Error) => void} */
    let fail = () => {};
    const failed = new Promise((_, reject) => {
      fail = (error) => {
        reject(error);
        session.abort();
      };
    });
    failed.catch(() => {});
    /** @param {string} text */
    this.send = (text) => {
      if (socket.readyState === 1) socket.send(text);
    };
    let lastHeard = Date.now();
    socket.onmessage = (event) => {
      const text = typeof event.data === "string" ? event.data : "";
      lastHeard = Date.now();
      // First: a clock answer is stamped on arrival.
      if (this.context.clockSocket.receive(text)) return;
      this.inbound.push(text);
      this.wakeReader?.();
    };
    socket.onclose = (event) => fail(new Dropped(`the socket closed (${event.code}${event.reason ? ": " + event.reason : ""})`));
    this.context.clockSocket.attach(this.send);
    const interval = this.context.configuration.heartbeatIntervalMs;
    let beats = 0;
    const heartbeat = setInterval(() => {
      if (Date.now() - lastHeard > interval * 2.5) return fail(new Dropped("the server went silent; reconnecting"));
      beats += 1;
      this.send?.(`h:${beats}`);
    }, interval);
    try {
      this.channels.forEach((bucket, channel) => this.send?.(`${channel}:init:${this.initMessage(bucket)}`));
      const loops = [this.readLoop(session.signal), this.flushLoop(session.signal), this.openChannels(session.signal)];
      await Promise.race([failed, Promise.all(loops.map((loop) => loop.catch((error) => fail(error))))]);
    } finally {
      clearInterval(heartbeat);
      signal.removeEventListener("abort", stop);
      session.abort();
      this.context.clockSocket.detach();
      this.context.live.clear();
      this.context.progress.signal();
      socket.onclose = null;
      socket.onmessage = null;
      this.wakeReader?.();
      if (socket.readyState <= 1) socket.close(1000);
    }
  }

  /** @param {string} bucket */
  initMessage(bucket) {
    const context = this.context;
    return serialize({
      clientid: context.replica.clientID, api: "1.1", token: context.api.token, app_id: context.api.app, name: bucket,
      library: "lockstep-js", version: "1",
    });
  }

  /**
   * Handles frames as they arrive, what queued meanwhile together.
   * @param {AbortSignal} signal
   */
  async readLoop(signal) {
    signal.addEventListener("abort", () => this.wakeReader?.(), { once: true });
    while (!signal.aborted) {
      if (this.inbound.length === 0) {
        await new Promise((resolve) => {
          this.wakeReader = () => {
            this.wakeReader = null;
            resolve(undefined);
          };
        });
        continue;
      }
      const frames = this.inbound.map(parseFrame);
      this.inbound = [];
      await this.receive(frames);
    }
  }

  /**
   * Frames in order, a run of changes on live channels in one transaction.
   * @param {Frame[]} frames
   */
  async receive(frames) {
    let index = 0;
    while (index < frames.length) {
      let end = index;
      while (end < frames.length) {
        const frame = frames[end];
        if (frame.kind !== "channel" || frame.command !== "c" || this.phases[frame.channel] !== "live") break;
        end++;
      }
      if (end === index) {
        await this.receiveOne(frames[index]);
        index++;
      } else {
        await this.receiveLive(frames.slice(index, end));
        index = end;
      }
    }
  }

  /**
   * `c:` frames of live channels: one transaction for all, each bucket's changes in order.
   * @param {Frame[]} frames
   */
  async receiveLive(frames) {
    /** @type {Map<number, import("./remote-change.js").RemoteChange[]>} */
    const byChannel = new Map();
    for (const frame of frames) {
      if (frame.kind !== "channel") continue;
      const changes = byChannel.get(frame.channel) ?? [];
      changes.push(...readChanges(frame.payload));
      byChannel.set(frame.channel, changes);
    }
    const channels = Array.from(byChannel.keys());
    const batches = channels.map((channel) => ({ bucket: this.channels[channel], changes: byChannel.get(channel) ?? [] }));
    const outcomes = await this.context.take(batches);
    channels.forEach((channel, index) => this.followUp(outcomes[index], batches[index], channel));
  }

  /**
   * What a batch left to do on the wire: whole objects to resend, changes to retry soon.
   * @param {ReceiveOutcome} outcome
   * @param {ChangeBatch} batch
   * @param {number} channel
   */
  followUp(outcome, batch, channel) {
    for (const change of outgoingByChangeIDs(this.context.replica, batch.bucket, outcome.resendFull)) {
      this.send?.(`${channel}:c:${serialize(change)}`);
    }
    if (outcome.retryLater) {
      const failed = batch.changes.filter((change) => change.error !== null).flatMap((change) => change.changeIDs);
      sleep(1000).then(() => {
        for (const change of outgoingByChangeIDs(this.context.replica, batch.bucket, failed)) {
          this.send?.(`${channel}:c:${serialize(change)}`);
        }
      });
    }
  }

  /** @param {Frame} frame */
  async receiveOne(frame) {
    if (frame.kind !== "channel" || frame.channel >= this.channels.length) return;
    const { channel, command, payload } = frame;
    const bucket = this.channels[channel];
    const context = this.context;
    const replica = context.replica;
    switch (command) {
      case "auth":
        if (payload.startsWith("{")) {
          if (await this.spaceChannelRefused(channel, bucket, payload)) return;
          throw new LockstepError("unauthorized", `the server refused the token: ${payload}`, 401);
        }
        this.onConnected();
        this.start(channel, bucket);
        return;
      case "i": {
        const page = readIndexPage(JSON.parse(payload));
        const here = position(replica, bucket);
        const first = here.kind === "index" && here.mark === null;
        // The next page is asked for first: the server reads it while this one is written.
        if (page.mark !== null) this.send?.(`${channel}:i:1:${page.mark}::${context.configuration.indexPageSize}`);
        const complete = await takeIndexPage(replica, bucket, page, first);
        context.progress.signal();
        if (complete) this.start(channel, bucket);
        return;
      }
      case "c": {
        const batch = { bucket, changes: readChanges(payload) };
        const [outcome] = await context.take([batch]);
        this.followUp(outcome, batch, channel);
        if (this.phases[channel] !== "catchingUp") return;
        const here = position(replica, bucket);
        if (batch.changes.length >= catchUpPage && here.kind === "changes") {
          this.send?.(`${channel}:cv:${here.after}`);
          return;
        }
        this.phases[channel] = "live";
        context.setLive(bucket, true);
        // Everything sent before the connection dropped goes again, with its ccid.
        for (const change of await takeOutgoing(replica, bucket, true)) this.send?.(`${channel}:c:${serialize(change)}`);
        return;
      }
      case "cv":
        // `cv:?`: the server no longer knows our cursor.
        await restartIndex(replica, bucket);
        this.start(channel, bucket);
        return;
      case "o":
        await setOptions(replica, bucket, payload);
        return;
      case "?":
        this.channelEnded(channel, bucket, payload);
        return;
      default:
        return;
    }
  }

  /**
   * Asks for what the bucket needs next: an index page, or the changes since its cursor.
   * @param {number} channel
   * @param {string} bucket
   */
  start(channel, bucket) {
    this.context.setLive(bucket, false);
    const here = position(this.context.replica, bucket);
    if (here.kind === "index") {
      this.phases[channel] = "indexing";
      this.send?.(`${channel}:i:1:${here.mark ?? ""}::${this.context.configuration.indexPageSize}`);
    } else {
      this.phases[channel] = "catchingUp";
      this.send?.(`${channel}:cv:${here.after}`);
    }
  }

  /**
   * Sends new outbox changes of live channels whenever the outbox changes.
   * @param {AbortSignal} signal
   */
  async flushLoop(signal) {
    const replica = this.context.replica;
    let seen = 0;
    while (!signal.aborted) {
      seen = await replica.outboxChanged.wait(seen, signal);
      if (signal.aborted) return;
      for (let channel = 0; channel < this.channels.length; channel++) {
        if (this.phases[channel] !== "live") continue;
        for (const change of await takeOutgoing(replica, this.channels[channel], false)) {
          this.send?.(`${channel}:c:${serialize(change)}`);
        }
      }
    }
  }

  /**
   * Opens a channel on this socket for each bucket opened since, and again the channel of a
   * forgotten bucket opened anew. (Reconnecting would end every channel, and with them what the
   * connection holds in presence buckets.)
   * @param {AbortSignal} signal
   */
  async openChannels(signal) {
    const replica = this.context.replica;
    let seen = replica.bucketsChanged.generation;
    while (!signal.aborted) {
      for (const name of replica.bucketNames()) {
        let channel = this.channels.indexOf(name);
        if (channel >= 0) {
          if (this.phases[channel] !== "forgotten") continue;
        } else {
          this.channels.push(name);
          this.phases.push("authorizing");
          this.reopenReasons.push(null);
          channel = this.channels.length - 1;
        }
        this.phases[channel] = "authorizing";
        this.send?.(`${channel}:init:${this.initMessage(name)}`);
      }
      seen = await replica.bucketsChanged.wait(seen, signal);
    }
  }

  /**
   * `N:?:{"code":403,…}`: the server ended a space's channel as this user's right changed;
   * the channel is opened again once to learn whether they still have one. Others are ignored.
   * @param {number} channel
   * @param {string} bucket
   * @param {string} payload
   */
  channelEnded(channel, bucket, payload) {
    let error = null;
    try {
      error = JSON.parse(payload);
    } catch {
      // Not JSON: not a space's end.
    }
    if (spaceOfBucket(bucket) === null || error?.code !== 403) return;
    const phase = this.phases[channel];
    if (phase === "reopening" || phase === "forgotten") return;
    this.phases[channel] = "reopening";
    this.reopenReasons[channel] = typeof error.message === "string" ? error.message : "the server ended the channel";
    this.context.setLive(bucket, false);
    this.send?.(`${channel}:init:${this.initMessage(bucket)}`);
  }

  /**
   * `N:auth:{"code":404,…}` on a space's bucket (a stranger's answer): asks whether this user is
   * still in the space; if not the bucket is forgotten and the channel stays closed, else it is
   * opened again shortly. false for any other refusal (the token's).
   * @param {number} channel
   * @param {string} bucket
   * @param {string} payload
   */
  async spaceChannelRefused(channel, bucket, payload) {
    let code = null;
    try {
      code = JSON.parse(payload).code;
    } catch {
      return false;
    }
    if (spaceOfBucket(bucket) === null || code !== 404) return false;
    const reason = this.phases[channel] === "reopening" ? this.reopenReasons[channel] ?? undefined : undefined;
    if (await this.context.forgetIfSpaceLost(bucket, reason)) {
      this.phases[channel] = "forgotten";
    } else {
      sleep(500).then(() => this.send?.(`${channel}:init:${this.initMessage(bucket)}`));
    }
    return true;
  }
}

/**
 * Opens a WebSocket, giving up after `limitMs` or when `signal` aborts.
 * @param {new (url: string) => WebSocket} Socket
 * @param {string} url
 * @param {number} limitMs
 * @param {AbortSignal} [signal]
 * @returns {Promise<WebSocket>}
 */
function open(Socket, url, limitMs, signal) {
  return new Promise((resolve, reject) => {
    /** @type {WebSocket} */
    let socket;
    try {
      socket = new Socket(url);
    } catch (error) {
      reject(error);
      return;
    }
    const timer = setTimeout(() => finish(new LockstepError("network", `the server did not answer the socket's upgrade within ${limitMs} ms`)), limitMs);
    const abort = () => finish(new LockstepError("closed", "the sync stopped"));
    signal?.addEventListener("abort", abort, { once: true });
    /** @param {Error | null} error */
    const finish = (error) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
      socket.onopen = null;
      socket.onerror = null;
      socket.onclose = null;
      if (error) {
        if (socket.readyState <= 1) socket.close();
        reject(error);
      } else {
        resolve(socket);
      }
    };
    socket.onopen = () => finish(null);
    socket.onerror = () => finish(new LockstepError("network", `the socket to ${url} could not be opened`));
    socket.onclose = (event) => finish(new LockstepError("network", `the socket to ${url} closed as it opened (${event.code})`));
  });
}
