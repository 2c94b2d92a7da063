export class ServerClock extends EventTarget {
    /**
     * @param {ClockTransport} transport
     * @param {ClockConfiguration} [configuration]
     * @param {LocalTime} [time]
     */
    constructor(transport: ClockTransport, configuration?: ClockConfiguration | undefined, time?: LocalTime | undefined);
    transport: import("./transports.js").ClockTransport;
    configuration: ClockConfiguration;
    time: LocalTime;
    estimator: ClockEstimator;
    /** @type {Promise<void> | null} The round under way, which concurrent callers join. */
    round: Promise<void> | null;
    /** The estimate behind the answers: offset, drift and their bounds; null before the first exchange. */
    get estimate(): import("./drift.js").ClockEstimate | null;
    /** The exchanges the estimate is built from, oldest first. */
    get samples(): import("./sample.js").ClockSample[];
    /**
     * The server's time now, or null if the clock was never calibrated in this page or process.
     * @returns {ServerTime | null}
     */
    now(): ServerTime | null;
    /**
     * The server's time at a local instant of `time` (its nanoseconds).
     * @param {bigint} local
     */
    serverTimeAt(local: bigint): ServerTime | null;
    /** Now on the server's clock in nanoseconds, or null before the first exchange: what stamps edits. */
    serverTimeNow(): bigint | null;
    /**
     * Resolves when the server's clock shows `nanoseconds` by the best estimate (a long wait
     * follows re-syncs, waking again if it woke too early).
     * @param {bigint} nanoseconds
     * @param {AbortSignal} [signal]
     */
    sleepUntil(nanoseconds: bigint, signal?: AbortSignal | undefined): Promise<void>;
    /**
     * Exchanges a round now (after a reconnect, say), or joins the one under way. Throws if no
     * exchange of the round succeeded.
     */
    resync(): Promise<void>;
    /**
     * Keeps the clock calibrated until `signal` aborts: a round now, then one every five minutes,
     * sooner after a failure, and again when a page becomes visible (it may have slept).
     * @param {AbortSignal} signal
     */
    run(signal: AbortSignal): Promise<void>;
    /** Up to `exchangesPerRound` exchanges, stopping once the bound is tight or at a failure. */
    exchangeRound(): Promise<void>;
}
export type ClockTransport = import("./transports.js").ClockTransport;
export type ClockEstimate = import("./drift.js").ClockEstimate;
export type ClockConfiguration = {
    /**
     * The most exchanges in one round (8).
     */
    exchangesPerRound: number;
    /**
     * A round stops early once the bound is this small (50 µs).
     */
    targetErrorBound: bigint;
    /**
     * Between periodic rounds (5 minutes).
     */
    resyncIntervalMs: number;
    /**
     * Before trying again after a failed round (15 s).
     */
    retryIntervalMs: number;
};
import { LocalTime } from "./local-time.js";
import { ClockEstimator } from "./estimator.js";
import { ServerTime } from "./server-time.js";
