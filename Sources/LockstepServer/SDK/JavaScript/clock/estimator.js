// Turns a stream of clock exchanges into an estimate of the server's clock (LockstepCore's
// ClockEstimator): the offset from the newest samples, the drift from the rounds, and when
// history contradicts the newest sample (a clock stepped) the oldest samples are forgotten
// until the rest agree, and the drift starts over.
import { estimateOffset } from "./filter.js";
import { defaultEstimatorConfiguration, driftOf, unmeasured } from "./drift.js";
import { isPlausible, localMidpoint, sameSample } from "./sample.js";
import { maxBig } from "./numbers.js";

/** @typedef {import("./sample.js").ClockSample} ClockSample */
/** @typedef {import("./drift.js").ClockEstimate} ClockEstimate */
/** @typedef {import("./drift.js").ClockDrift} ClockDrift */
/** @typedef {import("./drift.js").EstimatorConfiguration} EstimatorConfiguration */

export class ClockEstimator {
  /** @param {EstimatorConfiguration} [configuration] */
  constructor(configuration = defaultEstimatorConfiguration) {
    this.configuration = configuration;
    /** @type {{ samples: ClockSample[], rounds: ClockEstimate[], openRound: ClockSample[] }} */
    this.history = { samples: [], rounds: [], openRound: [] };
    /** @type {ClockDrift} */
    this.drift = unmeasured(configuration.frequencyTolerance);
    /** @type {ClockEstimate | null} */
    this.estimate = null;
  }

  /**
   * Adds one exchange of the round in progress; false, changing nothing, for an implausible one.
   * @param {ClockSample} sample
   */
  record(sample) {
    if (!isPlausible(sample)) return false;
    this.history.samples.push(sample);
    this.history.openRound.push(sample);
    this.updateEstimate();
    return true;
  }

  /** Closes the round in progress: its samples become one point of the drift's history. */
  completeRound() {
    if (this.history.openRound.length === 0) return;
    const newest = this.history.openRound.map(localMidpoint).reduce(maxBig);
    const point = estimateOffset(this.history.openRound, newest, unmeasured(this.configuration.frequencyTolerance));
    if (point) this.history.rounds.push(point);
    this.history.openRound = [];
    this.updateDrift();
    this.updateEstimate();
  }

  updateDrift() {
    this.history.rounds = this.history.rounds.slice(-this.configuration.roundWindow);
    for (;;) {
      const measured = driftOf(this.history.rounds, this.configuration);
      if (measured) {
        this.drift = measured;
        return;
      }
      this.history.rounds.shift();
    }
  }

  updateEstimate() {
    this.history.samples = this.history.samples.slice(-this.configuration.sampleWindow);
    if (this.history.samples.length === 0) {
      this.estimate = null;
      return;
    }
    const anchor = this.history.samples.map(localMidpoint).reduce(maxBig);
    let contradicted = false;
    for (;;) {
      const current = estimateOffset(this.history.samples, anchor, this.drift);
      if (current) {
        this.estimate = current;
        break;
      }
      this.history.samples.shift();
      contradicted = true;
    }
    if (contradicted) this.forgetRoundsAfterContradiction();
  }

  /** A clock jumped: every round is suspect, and the drift starts over from the rounds that follow. */
  forgetRoundsAfterContradiction() {
    this.history.rounds = [];
    this.history.openRound = this.history.openRound.filter((sample) => this.history.samples.some((kept) => sameSample(kept, sample)));
    this.updateDrift();
    if (this.history.samples.length === 0) return;
    const anchor = this.history.samples.map(localMidpoint).reduce(maxBig);
    this.estimate = estimateOffset(this.history.samples, anchor, this.drift) ?? this.estimate;
  }
}
