// The server's time without trusting the device's clock (the Swift SDK's ServerClock):
// exchanges in rounds (a burst at start, one every five minutes, and after each reconnect), an
// estimate with an error bound that holds, growing slowly while offline.
import { ClockEstimator } from "./estimator.js";
import { LocalTime } from "./local-time.js";
import { ServerTime } from "./server-time.js";
import { boundGrowth, offsetChange } from "./drift.js";
import { LockstepError } from "../errors.js";
import { sleep } from "../util/wakeup.js";

/** @typedef {import("./transports.js").ClockTransport} ClockTransport */
/** @typedef {import("./drift.js").ClockEstimate} ClockEstimate */
/**
 * @typedef {object} ClockConfiguration
 * @property {number} exchangesPerRound The most exchanges in one round (8).
 * @property {bigint} targetErrorBound A round stops early once the bound is this small (50 µs).
 * @property {number} resyncIntervalMs Between periodic rounds (5 minutes).
 * @property {number} retryIntervalMs Before trying again after a failed round (15 s).
 */

/** @type {ClockConfiguration} */
const defaultClockConfiguration = Object.freeze({
  exchangesPerRound: 8, targetErrorBound: 50_000n, resyncIntervalMs: 5 * 60_000, retryIntervalMs: 15_000,
});

export class ServerClock extends EventTarget {
  /**
   * @param {ClockTransport} transport
   * @param {ClockConfiguration} [configuration]
   * @param {LocalTime} [time]
   */
  constructor(transport, configuration = defaultClockConfiguration, time = new LocalTime()) {
    super();
    this.transport = transport;
    this.configuration = configuration;
    this.time = time;
    this.estimator = new ClockEstimator();
    /** @type {Promise<void> | null} The round under way, which concurrent callers join. */
    this.round = null;
  }

  /** The estimate behind the answers: offset, drift and their bounds; null before the first exchange. */
  get estimate() {
    return this.estimator.estimate;
  }

  /** The exchanges the estimate is built from, oldest first. */
  get samples() {
    return this.estimator.history.samples.slice();
  }

  /**
   * The server's time now, or null if the clock was never calibrated in this page or process.
   * @returns {ServerTime | null}
   */
  now() {
    return this.serverTimeAt(this.time.now());
  }

  /**
   * The server's time at a local instant of `time` (its nanoseconds).
   * @param {bigint} local
   */
  serverTimeAt(local) {
    const estimate = this.estimate;
    if (!estimate) return null;
    const elapsed = local - estimate.anchor;
    return new ServerTime(local + estimate.offset + offsetChange(estimate.drift, elapsed), estimate.errorBound + boundGrowth(estimate.drift, elapsed));
  }

  /** Now on the server's clock in nanoseconds, or null before the first exchange: what stamps edits. */
  serverTimeNow() {
    return this.now()?.nanoseconds ?? null;
  }

  /**
   * Resolves when the server's clock shows `nanoseconds` by the best estimate (a long wait
   * follows re-syncs, waking again if it woke too early).
   * @param {bigint} nanoseconds
   * @param {AbortSignal} [signal]
   */
  async sleepUntil(nanoseconds, signal) {
    for (;;) {
      const estimate = this.estimate;
      if (!estimate) throw new LockstepError("uncalibrated", "the clock has not exchanged with the server yet");
      const local = nanoseconds - estimate.offset;
      const wait = this.time.millisecondsUntil(local);
      if (wait <= 0) return;
      if (!(await sleep(Math.min(wait, 60_000), signal))) return;
    }
  }

  /**
   * Exchanges a round now (after a reconnect, say), or joins the one under way. Throws if no
   * exchange of the round succeeded.
   */
  resync() {
    if (!this.round) {
      this.round = this.exchangeRound().finally(() => {
        this.round = null;
      });
    }
    return this.round;
  }

  /**
   * Keeps the clock calibrated until `signal` aborts: a round now, then one every five minutes,
   * sooner after a failure, and again when a page becomes visible (it may have slept).
   * @param {AbortSignal} signal
   */
  async run(signal) {
    const wake = () => {
      if (typeof document === "undefined" || document.visibilityState === "visible") this.resync().catch(() => {});
    };
    globalThis.addEventListener?.("visibilitychange", wake);
    try {
      while (!signal.aborted) {
        let delay = this.configuration.resyncIntervalMs;
        try {
          await this.resync();
        } catch {
          delay = this.configuration.retryIntervalMs;
        }
        await sleep(delay, signal);
      }
    } finally {
      globalThis.removeEventListener?.("visibilitychange", wake);
    }
  }

  /** Up to `exchangesPerRound` exchanges, stopping once the bound is tight or at a failure. */
  async exchangeRound() {
    const mayOpen = this.transport.mayOpenConnection;
    try {
      for (let index = 0; index < this.configuration.exchangesPerRound; index++) {
        let sample;
        try {
          sample = await this.transport.sample(this.time);
        } catch (error) {
          if (index === 0) throw error;
          return;
        }
        sample.opensConnection = index === 0 && mayOpen;
        this.estimator.record(sample);
        const bound = this.estimate?.errorBound;
        if (bound !== undefined && bound <= this.configuration.targetErrorBound) return;
      }
    } finally {
      if (this.estimator.history.openRound.length > 0) {
        this.estimator.completeRound();
        this.dispatchEvent(new Event("calibrate"));
      }
    }
  }
}
