// How fast the offset between the two clocks changes (LockstepCore's ClockDrift and
// DriftEstimator): the least-squares slope of the rounds' offsets once they span long enough,
// bounded by every rate that keeps each round's offset within its bar.
import { leastSquaresSlope, magnitude, saturating, roundAway } from "./numbers.js";

/**
 * @typedef {object} ClockDrift
 * @property {number} rate The server's rate over the local rate, minus one.
 * @property {number} rateBound The true rate lies within rate ± rateBound.
 */
/**
 * What the client knows of the server's clock at one local instant.
 * @typedef {object} ClockEstimate
 * @property {bigint} anchor The local instant at which offset and errorBound hold.
 * @property {bigint} offset Server time minus local time at the anchor.
 * @property {bigint} errorBound The largest possible error of the offset at the anchor.
 * @property {ClockDrift} drift
 */
/**
 * @typedef {object} EstimatorConfiguration
 * @property {number} sampleWindow Samples the offset comes from (32).
 * @property {number} roundWindow Rounds the drift comes from (64).
 * @property {bigint} minimumDriftSpan How long the rounds must span before their slope is trusted (15 min).
 * @property {number} frequencyTolerance The largest rate difference assumed until measured (100 ppm).
 */

/** @type {EstimatorConfiguration} */
export const defaultEstimatorConfiguration = Object.freeze({
  sampleWindow: 32, roundWindow: 64, minimumDriftSpan: 15n * 60n * 1_000_000_000n, frequencyTolerance: 100e-6,
});

/**
 * @param {number} tolerance
 * @returns {ClockDrift}
 */
export const unmeasured = (tolerance) => ({ rate: 0, rateBound: tolerance });

/**
 * How much the offset moves over `nanoseconds` of local time.
 * @param {ClockDrift} drift
 * @param {bigint} nanoseconds
 */
export const offsetChange = (drift, nanoseconds) => saturating(roundAway(drift.rate * Number(nanoseconds)));

/**
 * How much an error bound grows over `nanoseconds` (either way), rounded up, plus 2 ns for the
 * rounding of both clocks' integer stamps.
 * @param {ClockDrift} drift
 * @param {bigint} nanoseconds
 */
export const boundGrowth = (drift, nanoseconds) => saturating(Math.ceil(drift.rateBound * Number(magnitude(nanoseconds)))) + 2n;

/**
 * The drift the rounds imply, or null when no constant rate within the tolerance fits them all.
 * @param {ClockEstimate[]} rounds
 * @param {EstimatorConfiguration} configuration
 * @returns {ClockDrift | null}
 */
export function driftOf(rounds, configuration) {
  const range = consistentRates(rounds, configuration.frequencyTolerance);
  if (!range) return null;
  const measured = measuredRate(rounds, configuration.minimumDriftSpan);
  const rate = Math.min(Math.max(measured ?? 0, range[0]), range[1]);
  return { rate, rateBound: Math.max(rate - range[0], range[1] - rate) };
}

/**
 * The rates that keep every round's offset within its bound, if any.
 * @param {ClockEstimate[]} rounds
 * @param {number} tolerance
 * @returns {[number, number] | null}
 */
function consistentRates(rounds, tolerance) {
  let lowest = -tolerance;
  let highest = tolerance;
  for (let index = 0; index < rounds.length; index++) {
    const earlier = rounds[index];
    for (const later of rounds.slice(index + 1)) {
      const elapsed = later.anchor - earlier.anchor;
      const closest = (later.offset - later.errorBound) - (earlier.offset + earlier.errorBound);
      const farthest = (later.offset + later.errorBound) - (earlier.offset - earlier.errorBound);
      if (elapsed === 0n) {
        // Simultaneous rounds constrain no rate, but their bounds must overlap.
        if (!(closest <= 0n && farthest >= 0n)) return null;
        continue;
      }
      const slow = Number(closest) / Number(elapsed);
      const fast = Number(farthest) / Number(elapsed);
      lowest = Math.max(lowest, Math.min(slow, fast));
      highest = Math.min(highest, Math.max(slow, fast));
    }
  }
  return lowest <= highest ? [lowest, highest] : null;
}

/**
 * @param {ClockEstimate[]} rounds
 * @param {bigint} minimumSpan
 */
function measuredRate(rounds, minimumSpan) {
  const first = rounds[0];
  const last = rounds[rounds.length - 1];
  if (!first || !last || last.anchor - first.anchor < minimumSpan) return null;
  return leastSquaresSlope(
    rounds.map((round) => Number(round.anchor - first.anchor)), rounds.map((round) => Number(round.offset - first.offset)));
}
