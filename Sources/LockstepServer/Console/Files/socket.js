// The streaming protocol every client speaks (shared/protocol/simperium-wire.md): one
// WebSocket, many bucket channels on it, `<channel>:<command>:<payload>`. The admin token goes
// inside each channel's init message, never in the socket's URL.
import * as session from "./session.js";
import { status } from "./dom.js";

let socket = null;
let nextNumber = 0;
const channels = new Map();
let heartbeat = 0;
let reconnectTimer = 0;
// Who takes the server's `release:{…}` pushes, once a view asked for them (followReleases), and
// who is told each time the socket subscribed (so as to catch up on what came before).
let onRelease = null;
let onSubscribed = null;

/** Opens a channel on `bucket` (as `user`, for a user's bucket). `handlers.start(channel)` runs after each
 * successful auth (also after a reconnect) and asks for what the view needs (`cv:` or `i:`);
 * `handlers.changes(list)`, `handlers.index(page)` and `handlers.error(message)` take what comes back. */
export function openChannel(bucket, user, handlers) {
  const channel = new Channel(nextNumber++, bucket, user, handlers);
  channels.set(channel.number, channel);
  ensureSocket();
  if (socket.readyState === WebSocket.OPEN) channel.init();
  return channel;
}

/** Opens the console's own channel (`__admin__`, for the admin token alone), on which the server pushes
 * the reports a view asks for; with no report asked, it only keeps the socket open. */
export function openAdmin(handlers = {}) {
  return openChannel("__admin__", undefined, handlers);
}

/** Follows one report of the admin channel, `"stats"`, `"presence"` or `"webhooks"`, which the server pushes whenever
 * it moves: `onReport(report)` at each, `onError(text)` on a refusal. Resolves at the first of either,
 * or after three seconds without (the view shows itself waiting; the report follows when it comes). */
export function followReport(topic, onReport, onError) {
  return new Promise((resolve) => {
    openAdmin({
      start: (channel) => channel.send(topic),
      [topic]: (report) => { onReport(report); resolve(); },
      error: (text) => { onError(text); resolve(); },
    });
    setTimeout(resolve, 3000);
  });
}

/** Asks the server to push each key release of the timed store (`release:`, also after a reconnect) to
 * `handler({store, epoch, index, key, time})`; `subscribed()` runs each time it was asked, for the view
 * to catch up on releases before then. The socket stays open through a channel: open one too. */
export function followReleases(handler, subscribed = () => {}) {
  onRelease = handler;
  onSubscribed = subscribed;
  if (socket?.readyState === WebSocket.OPEN) subscribeToReleases();
}

function subscribeToReleases() {
  socket.send("release:");
  onSubscribed?.();
}

/** Closes every channel and the socket: a view that leaves calls this through its cleanup. */
export function closeAll() {
  channels.clear();
  onRelease = null;
  onSubscribed = null;
  clearTimeout(reconnectTimer);
  clearInterval(heartbeat);
  if (socket) {
    socket.onclose = null;
    socket.close();
    socket = null;
  }
}

class Channel {
  constructor(number, bucket, user, handlers) {
    this.number = number;
    this.bucket = bucket;
    this.user = user;
    this.handlers = handlers;
    this.cv = null;
    this.clientID = "console-" + Math.random().toString(16).slice(2, 10);
  }

  init() {
    const signedIn = session.current();
    const fields = { name: this.bucket, token: signedIn.token, clientid: this.clientID, api: "1.1", app_id: signedIn.app, lockstep: true };
    if (this.user) fields.user = this.user;
    this.send("init", JSON.stringify(fields));
  }

  send(command, payload) {
    if (socket?.readyState !== WebSocket.OPEN) return false;
    socket.send(payload === undefined ? `${this.number}:${command}` : `${this.number}:${command}:${payload}`);
    return true;
  }

  /** Sends a change `{id, o, v, sv?}` with a new ccid; resolves with the server's answer for it. */
  change(change) {
    const ccid = change.ccid;
    return new Promise((resolve) => {
      this.pending ??= new Map();
      this.pending.set(ccid, resolve);
      if (!this.send("c", JSON.stringify({ clientid: this.clientID, ...change }))) {
        this.pending.delete(ccid);
        resolve({ error: 503, message: "not connected to the server; try again in a moment" });
      }
    });
  }

  receive(command, payload) {
    if (command === "auth") {
      if (payload.startsWith("{")) {
        const refusal = JSON.parse(payload);
        this.handlers.error?.(`${refusal.code}: ${refusal.msg}`);
        return;
      }
      this.handlers.start?.(this);
    } else if (command === "c") {
      const list = JSON.parse(payload);
      for (const change of list) {
        if (!change.error && change.cv) this.cv = change.cv;
        for (const ccid of change.ccids ?? []) {
          const resolve = this.pending?.get(ccid);
          if (resolve) {
            this.pending.delete(ccid);
            resolve(change);
          }
        }
      }
      this.handlers.changes?.(list);
    } else if (command === "cv" && payload === "?") {
      this.cv = null;
      this.handlers.error?.("the bucket's change feed no longer reaches where this view was; reload the view");
    } else if (command === "i") {
      const page = JSON.parse(payload);
      if (!this.cv) this.cv = page.current;
      this.handlers.index?.(page);
    } else if (command === "e") {
      this.handlers.entity?.(payload);
    } else if (command === "stats" || command === "presence" || command === "webhooks") {
      this.handlers[command]?.(JSON.parse(payload));
    } else if (command === "?") {
      this.handlers.error?.(JSON.parse(payload).message);
    }
  }
}

function ensureSocket() {
  if (socket) return;
  const signedIn = session.current();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/sock/1/${encodeURIComponent(signedIn.app)}/websocket`);
  socket.onopen = () => {
    status("live");
    let count = 0;
    heartbeat = setInterval(() => socket?.readyState === WebSocket.OPEN && socket.send(`h:${count++}`), 20000);
    for (const channel of channels.values()) channel.init();
    if (onRelease) subscribeToReleases();
  };
  socket.onmessage = (event) => dispatch(String(event.data));
  socket.onclose = () => {
    clearInterval(heartbeat);
    socket = null;
    if (channels.size === 0) return;
    status("connection lost; reconnecting…");
    reconnectTimer = setTimeout(ensureSocket, 1000);
  };
}

function dispatch(text) {
  const first = text.indexOf(":");
  const head = text.slice(0, first);
  if (head === "release") return onRelease?.(JSON.parse(text.slice(first + 1)));
  if (!/^\d+$/.test(head)) return; // h:, t: and connection errors: nothing for a channel
  const rest = text.slice(first + 1);
  const second = rest.indexOf(":");
  const command = second < 0 ? rest : rest.slice(0, second);
  const payload = second < 0 ? "" : rest.slice(second + 1);
  channels.get(Number(head))?.receive(command, payload);
}

/** After a channel's auth: start it at the bucket's present (the HTTP index's `current`), for views that
 * want only what happens from now on. */
export async function startFromNow(channel, currentCV) {
  channel.cv ??= currentCV;
  channel.send("cv", channel.cv);
}
