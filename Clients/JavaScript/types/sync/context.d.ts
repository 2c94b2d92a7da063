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
    constructor(replica: Replica, api: ServerAPI, socketURL: string, configuration: SyncConfiguration, clock: ServerClock, clockSocket: SocketClockTransport, onSpaceLost: (loss: SpaceLoss) => void, onState: (state: SyncState, error?: Error) => void);
    replica: import("../replica/replica.js").Replica;
    api: import("./server-api.js").ServerAPI;
    socketURL: string;
    configuration: SyncConfiguration;
    clock: import("../clock/server-clock.js").ServerClock;
    clockSocket: import("../clock/transports.js").SocketClockTransport;
    onSpaceLost: (loss: SpaceLoss) => void;
    onState: (state: SyncState, error?: Error) => void;
    /** Signalled whenever the sync makes progress: a bucket caught up, a batch taken in. */
    progress: Wakeup;
    /** @type {SyncState} */
    state: SyncState;
    /** @type {Set<string>} Buckets caught up with the server on the current connection. */
    live: Set<string>;
    /** @type {Error | null} Why the last connection attempt failed. */
    lastError: Error | null;
    /**
     * @param {SyncState} state
     * @param {Error} [error]
     */
    setState(state: SyncState, error?: Error | undefined): void;
    /** @param {string} bucket */
    isLive(bucket: string): boolean;
    /**
     * @param {string} bucket
     * @param {boolean} live
     */
    setLive(bucket: string, live: boolean): void;
    /**
     * Fetches objects whose ghosts fell out of step, and takes them in whole.
     * @param {string} bucket
     * @param {Set<string>} keys
     */
    resync(bucket: string, keys: Set<string>): Promise<void>;
    /**
     * Everything that follows from changes the server sent, in one transaction; one outcome a batch.
     * @param {ChangeBatch[]} batches
     */
    take(batches: ChangeBatch[]): Promise<import("../replica/remote.js").ReceiveOutcome[]>;
    /**
     * `null` while this user is a member of `space`; once they are not, the server's answer
     * (the same as for a space that never was).
     * @param {string} space
     */
    reasonForLosing(space: string): Promise<any>;
    /**
     * Whether this user lost the space `bucket` belongs to, asked of the server; if so the bucket
     * is forgotten, with `reason` (the one the server gave as it ended the channel). Asked, not
     * assumed: a channel opened while an owner changes this user's role is refused for a moment.
     * @param {string} bucket
     * @param {string} [reason]
     */
    forgetIfSpaceLost(bucket: string, reason?: string | undefined): Promise<boolean>;
}
/** Ends a polling session so that the loop starts again at once, with the new set of buckets. */
export class BucketsChanged extends Error {
    constructor();
}
export type Replica = import("../replica/replica.js").Replica;
export type ServerAPI = import("./server-api.js").ServerAPI;
export type ServerClock = import("../clock/server-clock.js").ServerClock;
export type SocketClockTransport = import("../clock/transports.js").SocketClockTransport;
export type ChangeBatch = import("../replica/remote.js").ChangeBatch;
export type SpaceLoss = import("../replica/forget.js").SpaceLoss;
/**
 * What the sync does: "stopped", "connecting", "streaming" (over the socket), "polling" (over
 * HTTP while the socket cannot be opened) or "unauthorized" (the server refused the token).
 */
export type SyncState = "stopped" | "connecting" | "streaming" | "polling" | "unauthorized";
export type SyncConfiguration = {
    /**
     * How often a heartbeat goes over the socket; 2.5 intervals of silence drop it.
     */
    heartbeatIntervalMs: number;
    /**
     * The bound of the first reconnection delay.
     */
    backoffInitialMs: number;
    /**
     * The largest bound.
     */
    backoffMaximumMs: number;
    /**
     * How long to sync over HTTP, at least, before trying the socket again.
     */
    pollingWindowMs: number;
    /**
     * Objects per index page on first sync.
     */
    indexPageSize: number;
    /**
     * The socket class; null syncs over HTTP only.
     */
    WebSocket: (new (url: string) => WebSocket) | null;
};
import { Wakeup } from "../util/wakeup.js";
