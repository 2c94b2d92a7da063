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
     * @param {{ body?: unknown, headers?: Record<string, string>, timeoutMs?: number, signal?: AbortSignal, raw?: BodyInit }} [options]
     * @returns {Promise<Response>}
     */
    send(method: string, path: string, options?: {
        body?: unknown;
        headers?: Record<string, string> | undefined;
        timeoutMs?: number | undefined;
        signal?: AbortSignal | undefined;
        raw?: BodyInit | undefined;
    } | undefined): Promise<Response>;
    /**
     * A JSON answer, or an error carrying the server's status and message.
     * @param {string} method
     * @param {string} path
     * @param {{ body?: unknown, timeoutMs?: number, signal?: AbortSignal }} [options]
     * @returns {Promise<string>} The answer's text.
     */
    json(method: string, path: string, options?: {
        body?: unknown;
        timeoutMs?: number | undefined;
        signal?: AbortSignal | undefined;
    } | undefined): Promise<string>;
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
