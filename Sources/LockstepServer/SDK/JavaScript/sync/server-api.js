// The HTTP side of the server (the Swift SDK's ServerAPI): index pages, the change feed
// (long-polled), posting changes, one object whole, bucket options, spaces, versions.
import { LockstepError, httpError } from "../errors.js";
import { serialize } from "../json/serialize.js";
import { isJSONObject } from "../json/value.js";
import { readChanges } from "./remote-change.js";
import { readIndexPage } from "../replica/index-walk.js";

/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("./remote-change.js").RemoteChange} RemoteChange */
/**
 * @typedef {object} RequestOptions
 * @property {unknown} [body] Sent as JSON.
 * @property {Record<string, string>} [headers]
 * @property {number} [timeoutMs] How long the answer's headers may take (30 s).
 * @property {AbortSignal} [signal] Aborts the request (the session's stop).
 * @property {BodyInit} [raw] Sent as is.
 */

/** RFC 3986's unreserved characters pass; everything else in a path segment or query value is escaped. */
export const escape = (/** @type {string} */ text) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (character) => "%" + character.charCodeAt(0).toString(16).toUpperCase());

export class ServerAPI {
  /**
   * @param {string} baseURL The server, e.g. "https://sync.example.com" (no trailing slash).
   * @param {string} app
   * @param {string} token
   * @param {string} clientID
   * @param {typeof fetch} [fetcher]
   */
  constructor(baseURL, app, token, clientID, fetcher = globalThis.fetch.bind(globalThis)) {
    this.baseURL = baseURL;
    this.app = app;
    this.token = token;
    this.clientID = clientID;
    this.fetch = fetcher;
  }

  /** The root of the app's API: `<server>/1/<app>`. */
  get root() {
    return `${this.baseURL}/1/${escape(this.app)}`;
  }

  /**
   * One request under `/1/{app}/`, `path` already escaped, with the token; throws a
   * LockstepError "unauthorized" when the server refuses the token.
   * @param {string} method
   * @param {string} path
   * @param {RequestOptions} [options]
   * @returns {Promise<Response>}
   */
  async send(method, path, options = {}) {
    const { response, release } = await this.open(method, path, options);
    release();
    return response;
  }

  /**
   * Like `send`, the body read as text; throws the server's error for any status but 2xx.
   * A stop (`options.signal`) aborts the request until its body is read.
   * @param {string} method
   * @param {string} path
   * @param {RequestOptions} [options]
   */
  async json(method, path, options = {}) {
    const { response, release } = await this.open(method, path, options);
    try {
      const text = await response.text();
      if (!response.ok) throw httpError(response.status, text, `${method} ${path}`);
      return text;
    } finally {
      release();
    }
  }

  /**
   * Sends the request; `release` stops listening to `options.signal`. The session's signal
   * lives as long as the session, so every request must let go of it, or each would leave a
   * listener (and its request's controller) behind for the session's life.
   * @param {string} method
   * @param {string} path
   * @param {RequestOptions} options
   * @returns {Promise<{ response: Response, release: () => void }>}
   */
  async open(method, path, options) {
    /** @type {Record<string, string>} */
    const headers = { "X-Simperium-Token": this.token, ...options.headers };
    /** @type {BodyInit | undefined} */
    let body = options.raw;
    if (options.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = serialize(/** @type {any} */ (options.body));
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error("timed out")), options.timeoutMs ?? 30000);
    const stop = options.signal;
    const stopped = () => controller.abort(stop?.reason);
    if (stop?.aborted) controller.abort(stop.reason);
    else stop?.addEventListener("abort", stopped, { once: true });
    const release = () => stop?.removeEventListener("abort", stopped);
    let response;
    try {
      response = await this.fetch(`${this.root}/${path}`, { method, headers, body, signal: controller.signal });
    } catch (error) {
      clearTimeout(timer);
      release();
      if (stop?.aborted) throw error;
      throw new LockstepError("network", `${method} ${path}: ${/** @type {Error} */ (error).message}`);
    }
    // The body is read later: the timer must not end it halfway, nor keep a process alive.
    clearTimeout(timer);
    if (response.status === 401) {
      try {
        throw httpError(401, await response.text(), `${method} ${path}`);
      } finally {
        release();
      }
    }
    return { response, release };
  }

  /**
   * @param {string} bucket
   * @param {string | null} mark
   * @param {number} limit
   * @param {boolean} [data]
   * @param {AbortSignal} [signal]
   */
  async indexPage(bucket, mark, limit, data = true, signal) {
    let query = `limit=${limit}` + (data ? "&data=1" : "");
    if (mark !== null) query += `&mark=${escape(mark)}`;
    return readIndexPage(JSON.parse(await this.json("GET", `${escape(bucket)}/index?${query}`, { timeoutMs: 60000, signal })));
  }

  /**
   * Changes after `cursor`; the server holds the request until there are some (or ~25 s).
   * null when the server no longer knows the cursor (404), so the bucket must be indexed again.
   * @param {string} bucket
   * @param {string} cursor
   * @param {number} limit
   * @param {AbortSignal} [signal]
   * @returns {Promise<RemoteChange[] | null>}
   */
  async changes(bucket, cursor, limit, signal) {
    const path = `${escape(bucket)}/changes?cv=${escape(cursor)}&clientid=${escape(this.clientID)}&limit=${limit}`;
    try {
      return readChanges(await this.json("GET", path, { timeoutMs: 90000, signal }));
    } catch (error) {
      if (error instanceof LockstepError && error.status === 404) return null;
      throw error;
    }
  }

  /**
   * Posts changes in one request: one result per change, in order.
   * @param {string} bucket
   * @param {Record<string, unknown>[]} changes
   * @param {AbortSignal} [signal]
   */
  async post(bucket, changes, signal) {
    const path = `${escape(bucket)}/changes?clientid=${escape(this.clientID)}&wait=1`;
    return readChanges(await this.json("POST", path, { body: changes, timeoutMs: 60000, signal }));
  }

  /**
   * The object's latest version, or null when it does not exist or was removed.
   * @param {string} bucket
   * @param {string} key
   * @param {number} [version] A version kept in its history, rather than the latest.
   * @returns {Promise<{ version: number, data: JSONObject } | null>}
   */
  async object(bucket, key, version) {
    const path = `${escape(bucket)}/i/${escape(key)}` + (version === undefined ? "" : `/v/${version}`);
    const response = await this.send("GET", path);
    const text = await response.text();
    if (response.status === 404) return null;
    if (!response.ok) throw httpError(response.status, text, `GET ${path}`);
    const header = Number(response.headers.get("X-Simperium-Version"));
    const data = JSON.parse(text);
    if (!Number.isInteger(header) || !isJSONObject(data)) throw new LockstepError("protocol", `GET ${path}: no version, or not an object`);
    return { version: header, data };
  }

  /**
   * The bucket's options as its app's admin set them ({} when none were).
   * @param {string} bucket
   * @returns {Promise<JSONObject>}
   */
  async options(bucket) {
    const response = await this.send("GET", `__options__/i/${escape(bucket)}`);
    const text = await response.text();
    if (response.status === 404) return {};
    if (!response.ok) throw httpError(response.status, text, "GET options");
    const options = JSON.parse(text);
    if (!isJSONObject(options)) throw new LockstepError("protocol", `the options of bucket ${bucket} are not a JSON object`);
    return options;
  }
}
