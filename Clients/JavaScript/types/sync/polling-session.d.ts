/** @typedef {import("./context.js").SyncContext} SyncContext */
export class PollingSession {
    /**
     * @param {SyncContext} context
     * @param {string[]} buckets
     */
    constructor(context: SyncContext, buckets: string[]);
    context: import("./context.js").SyncContext;
    buckets: string[];
    /**
     * Syncs every bucket until `signal` aborts or one of its loops fails, which ends the others.
     * @param {AbortSignal} signal
     */
    run(signal: AbortSignal): Promise<void>;
    /**
     * @param {number} generation
     * @param {AbortSignal} signal
     */
    watchBuckets(generation: number, signal: AbortSignal): Promise<void>;
    /**
     * Takes the bucket's changes until aborted; returns when the bucket is forgotten because this
     * user lost its space.
     * @param {string} bucket
     * @param {AbortSignal} signal
     */
    receiveLoop(bucket: string, signal: AbortSignal): Promise<void>;
    /**
     * @param {string} bucket
     * @param {string | null} start
     * @param {AbortSignal} signal
     */
    walkIndex(bucket: string, start: string | null, signal: AbortSignal): Promise<void>;
    /**
     * Sends the bucket's changes until aborted, once the bucket has caught up (diffs are made
     * against ghosts).
     * @param {string} bucket
     * @param {AbortSignal} signal
     */
    sendLoop(bucket: string, signal: AbortSignal): Promise<void>;
}
export type SyncContext = import("./context.js").SyncContext;
