// Ways to ask the server for its time: `GET /time?t1=…` over HTTP, and `t:<t1>` over the
// streaming socket while it is open (stamped as the frame arrives, before anything else).
import { LockstepError } from "../errors.js";

/** @typedef {import("./sample.js").ClockSample} ClockSample */
/** @typedef {import("./local-time.js").LocalTime} LocalTime */
/**
 * @typedef {object} ClockTransport
 * @property {(time: LocalTime) => Promise<ClockSample>} sample One whole exchange, stamped on `time`.
 * @property {boolean} mayOpenConnection Whether a round's first exchange may open a connection.
 */

/**
 * Reads the integers of a `/time` reply exactly (they are nanoseconds since the epoch, past
 * what a JavaScript number holds).
 * @param {string} text
 * @param {string} name
 */
function integer(text, name) {
  const match = new RegExp(`"${name}"\\s*:\\s*(-?[0-9]+)`).exec(text);
  if (!match) throw new LockstepError("protocol", `not a time reply: ${text.slice(0, 80)}`);
  return BigInt(match[1]);
}

/** @implements {ClockTransport} */
export class HTTPClockTransport {
  /**
   * @param {string} baseURL The server.
   * @param {typeof fetch} [fetcher]
   * @param {number} [timeoutMs]
   */
  constructor(baseURL, fetcher = globalThis.fetch.bind(globalThis), timeoutMs = 10000) {
    this.baseURL = baseURL;
    this.fetch = fetcher;
    this.timeoutMs = timeoutMs;
    this.mayOpenConnection = true;
  }

  /** @param {LocalTime} time */
  async sample(time) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const t1 = time.now();
      const response = await this.fetch(`${this.baseURL}/time?t1=${t1}`, { signal: controller.signal, cache: "no-store" });
      const text = await response.text();
      const t4 = time.now();
      if (response.status !== 200) throw new LockstepError("http", `GET /time answered ${response.status}`, response.status);
      // A stale reply (from a retried request, say) would pair our t4 with another t1.
      if (integer(text, "t1") !== t1) throw new LockstepError("protocol", "the time reply echoed another t1");
      return { t1, t2: integer(text, "t2"), t3: integer(text, "t3"), t4, serverResolution: 0n, opensConnection: false };
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Exchanges over the client's socket while one is attached, through `fallback` otherwise.
 * @implements {ClockTransport}
 */
export class SocketClockTransport {
  /**
   * @param {ClockTransport} fallback
   * @param {number} [timeoutMs]
   */
  constructor(fallback, timeoutMs = 10000) {
    this.fallback = fallback;
    this.timeoutMs = timeoutMs;
    /** @type {((text: string) => void) | null} */
    this.socket = null;
    /** @type {Map<bigint, { time: LocalTime, resolve: (sample: ClockSample) => void, reject: (error: Error) => void }>} */
    this.pending = new Map();
  }

  get mayOpenConnection() {
    return this.socket === null && this.fallback.mayOpenConnection;
  }

  /** @param {LocalTime} time @returns {Promise<ClockSample>} */
  sample(time) {
    const send = this.socket;
    if (!send) return this.fallback.sample(time);
    const t1 = time.now();
    if (this.pending.has(t1)) return this.fallback.sample(time);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(t1);
        reject(new LockstepError("timed-out", `no answer to a clock exchange over the socket within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(t1, {
        time,
        resolve: (sample) => { clearTimeout(timer); resolve(sample); },
        reject: (error) => { clearTimeout(timer); reject(error); },
      });
      send(`t:${t1}`);
    });
  }

  /**
   * Routes exchanges over `send` (which writes one text frame) until `detach()`.
   * @param {(text: string) => void} send
   */
  attach(send) {
    this.socket = send;
  }

  /** The socket closed: exchanges waiting on it fail, and later ones take the fallback. */
  detach() {
    this.socket = null;
    const orphans = Array.from(this.pending.values());
    this.pending.clear();
    for (const orphan of orphans) orphan.reject(new LockstepError("network", "the socket closed during a clock exchange"));
  }

  /**
   * Takes a frame the socket just received: true if it was a clock answer (`t:<t1>:<t2>:<t3>`),
   * consumed here. Call it first thing on arrival.
   * @param {string} text
   */
  receive(text) {
    if (!text.startsWith("t:")) return false;
    const fields = text.slice(2).split(":");
    if (fields.length !== 3 || !fields.every((field) => /^-?[0-9]+$/.test(field))) return true;
    const [t1, t2, t3] = fields.map(BigInt);
    const waiting = this.pending.get(t1);
    if (!waiting) return true;
    this.pending.delete(t1);
    const t4 = waiting.time.now();
    waiting.resolve({ t1, t2, t3, t4, serverResolution: 0n, opensConnection: false });
    return true;
  }
}
