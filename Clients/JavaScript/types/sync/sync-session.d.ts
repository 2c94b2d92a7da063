/** @typedef {import("./context.js").SyncContext} SyncContext */
/** @typedef {import("./context.js").SyncState} SyncState */
export class SyncSession {
    /**
     * @param {SyncContext} context
     * @param {(signal: AbortSignal) => Promise<void>} uploads Runs the attachment uploads beside the sync.
     */
    constructor(context: SyncContext, uploads: (signal: AbortSignal) => Promise<void>);
    context: import("./context.js").SyncContext;
    uploads: (signal: AbortSignal) => Promise<void>;
    /** @type {AbortController | null} */
    running: AbortController | null;
    /** @type {Promise<unknown> | null} */
    task: Promise<unknown> | null;
    /** @type {AbortController | null} The connection under way, which going offline ends. */
    attempt: AbortController | null;
    /** Signalled when the browser says the network came back. */
    online: Wakeup;
    /** What the sync does now. @returns {SyncState} */
    get state(): import("./context.js").SyncState;
    /**
     * Starts syncing every bucket this client opened (now or in an earlier session), in the
     * background; does nothing when started already. Errors never end it: it reconnects, except
     * when the server refuses the token (state "unauthorized").
     */
    start(): void;
    /** Stops syncing and closes the connection; what was not sent stays in the outbox. */
    stop(): Promise<void>;
    /**
     * Resolves once every bucket has caught up, the outbox is empty (refused changes aside) and
     * every queued attachment is on the server (failed ones aside). Rejects with a LockstepError
     * "timed-out" after `timeoutMs`, and "unauthorized" when the server refuses the token.
     * @param {{ timeoutMs?: number }} [options]
     */
    waitUntilIdle(options?: {
        timeoutMs?: number | undefined;
    } | undefined): Promise<void>;
    isIdle(): boolean;
    /**
     * Connects, reconnects and falls back to polling, until aborted.
     * @param {AbortSignal} signal
     */
    loop(signal: AbortSignal): Promise<void>;
    /**
     * Waits `milliseconds` before reconnecting, or until the browser says it is online again.
     * @param {number} milliseconds
     * @param {AbortSignal} signal
     */
    pause(milliseconds: number, signal: AbortSignal): Promise<void>;
    /** @param {Error} error */
    refused(error: Error): void;
    /**
     * Polls until the socket opens (tried every `windowMs`) or polling fails; an error when the
     * session must not go on (the token refused). Polling runs on while the socket is tried.
     * @param {string[]} buckets
     * @param {number} windowMs
     * @param {AbortSignal} signal
     * @returns {Promise<Error | null>}
     */
    poll(buckets: string[], windowMs: number, signal: AbortSignal): Promise<Error | null>;
}
export type SyncContext = import("./context.js").SyncContext;
export type SyncState = import("./context.js").SyncState;
import { Wakeup } from "../util/wakeup.js";
