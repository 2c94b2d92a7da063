export function escape(text: string): string;
export class ServerAPI {
    /**
     * @param {string} baseURL The server, e.g. "https://sync.example.com" (no trailing slash).
     * @param {string} app
     * @param {string} token
     * @param {string} clientID
     * @param {typeof fetch} [fetcher]
     */
    constructor(baseURL: string, app: string, token: string, clientID: string, fetcher?: typeof fetch | undefined);
    baseURL: string;
    app: string;
    token: string;
    clientID: string;
    fetch: typeof fetch;
    /** The root of the app's API: `<server>/1/<app>`. */
    get root(): string;
    /**
     * One request under `/1/{app}/`, `path` already escaped, with the token; throws a
     * LockstepError "unauthorized" when the server refuses the token.
     * @param {string} method
     * @param {string} path
     * @param {RequestOptions} [options]
     * @returns {Promise<Response>}
     */
    send(method: string, path: string, options?: RequestOptions | undefined): Promise<Response>;
    /**
     * Like `send`, the body read as text; throws the server's error for any status but 2xx.
     * A stop (`options.signal`) aborts the request until its body is read.
     * @param {string} method
     * @param {string} path
     * @param {RequestOptions} [options]
     */
    json(method: string, path: string, options?: RequestOptions | undefined): Promise<string>;
    /**
     * Sends the request; `release` stops listening to `options.signal`. The session's signal
     * lives as long as the session, so every request must let go of it, or each would leave a
     * listener (and its request's controller) behind for the session's life.
     * @param {string} method
     * @param {string} path
     * @param {RequestOptions} options
     * @returns {Promise<{ response: Response, release: () => void }>}
     */
    open(method: string, path: string, options: RequestOptions): Promise<{
        response: Response;
        release: () => void;
    }>;
    /**
     * @param {string} bucket
     * @param {string | null} mark
     * @param {number} limit
     * @param {boolean} [data]
     * @param {AbortSignal} [signal]
     */
    indexPage(bucket: string, mark: string | null, limit: number, data?: boolean | undefined, signal?: AbortSignal | undefined): Promise<import("../replica/index-walk.js").IndexPage>;
    /**
     * Changes after `cursor`; the server holds the request until there are some (or ~25 s).
     * null when the server no longer knows the cursor (404), so the bucket must be indexed again.
     * @param {string} bucket
     * @param {string} cursor
     * @param {number} limit
     * @param {AbortSignal} [signal]
     * @returns {Promise<RemoteChange[] | null>}
     */
    changes(bucket: string, cursor: string, limit: number, signal?: AbortSignal | undefined): Promise<RemoteChange[] | null>;
    /**
     * Posts changes in one request: one result per change, in order.
     * @param {string} bucket
     * @param {Record<string, unknown>[]} changes
     * @param {AbortSignal} [signal]
     */
    post(bucket: string, changes: Record<string, unknown>[], signal?: AbortSignal | undefined): Promise<import("./remote-change.js").RemoteChange[]>;
    /**
     * The object's latest version, or null when it does not exist or was removed.
     * @param {string} bucket
     * @param {string} key
     * @param {number} [version] A version kept in its history, rather than the latest.
     * @returns {Promise<{ version: number, data: JSONObject } | null>}
     */
    object(bucket: string, key: string, version?: number | undefined): Promise<{
        version: number;
        data: JSONObject;
    } | null>;
    /**
     * The bucket's options as its app's admin set them ({} when none were).
     * @param {string} bucket
     * @returns {Promise<JSONObject>}
     */
    options(bucket: string): Promise<JSONObject>;
}
export type JSONObject = import("../json/value.js").JSONObject;
export type RemoteChange = import("./remote-change.js").RemoteChange;
export type RequestOptions = {
    /**
     * Sent as JSON.
     */
    body?: unknown;
    headers?: Record<string, string> | undefined;
    /**
     * How long the answer's headers may take (30 s).
     */
    timeoutMs?: number | undefined;
    /**
     * Aborts the request (the session's stop).
     */
    signal?: AbortSignal | undefined;
    /**
     * Sent as is.
     */
    raw?: BodyInit | undefined;
};
