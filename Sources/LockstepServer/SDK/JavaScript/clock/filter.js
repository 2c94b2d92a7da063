// Combines a window of samples into one offset and a bound that always holds (LockstepCore's
// OffsetFilter): the estimate stays inside the intersection of every sample's bounds, blended
// between the level of the two directions' delay floors (queueing) and the mean of the samples'
// offsets (jitter), by how much the samples look like either.
import { localMidpoint, offsetBounds, roundTrip } from "./sample.js";
import { boundGrowth, offsetChange } from "./drift.js";
import { magnitude, maxBig, midpoint, minBig, pearsonCorrelation, roundAway, saturating } from "./numbers.js";

/** @typedef {import("./sample.js").ClockSample} ClockSample */
/** @typedef {import("./drift.js").ClockDrift} ClockDrift */
/** @typedef {import("./drift.js").ClockEstimate} ClockEstimate */
/**
 * A sample's bounds carried to another local instant, widened by the drift's uncertainty.
 * @typedef {{ lower: bigint, upper: bigint, roundTrip: bigint, widening: bigint, upLegIsTypical: boolean }} ProjectedSample
 */

/** Below this evidence the delay looks like jitter; from the next up, like queueing. */
const jitterEvidence = 0.4;
const queueingEvidence = 0.8;

/**
 * @param {ClockSample} sample
 * @param {bigint} instant
 * @param {ClockDrift} drift
 * @returns {ProjectedSample}
 */
function project(sample, instant, drift) {
  const travel = instant - localMidpoint(sample);
  const halfSpan = (sample.t4 - sample.t1 + 1n) / 2n;
  const shift = offsetChange(drift, travel);
  const widening = boundGrowth(drift, magnitude(travel) + halfSpan) + saturating(Math.ceil(Math.abs(drift.rate) * Number(halfSpan)));
  const [lower, upper] = offsetBounds(sample);
  return { lower: lower + shift - widening, upper: upper + shift + widening, roundTrip: roundTrip(sample), widening, upLegIsTypical: !sample.opensConnection };
}

/**
 * The estimate at local instant `anchor`, or null when the samples' bounds do not intersect
 * (the server's clock stepped, or the drift exceeded its bound).
 * @param {ClockSample[]} samples
 * @param {bigint} anchor
 * @param {ClockDrift} drift
 * @returns {ClockEstimate | null}
 */
export function estimateOffset(samples, anchor, drift) {
  const all = samples.map((sample) => project(sample, anchor, drift));
  if (all.length === 0) return null;
  const lower = all.map((sample) => sample.lower).reduce(maxBig);
  const upper = all.map((sample) => sample.upper).reduce(minBig);
  if (lower > upper) return null;
  const middle = midpoint(lower, upper);
  const typical = all.filter((sample) => sample.upLegIsTypical);
  const projected = typical.length === 0 ? all : typical;
  const offsets = projected.map((sample) => Number(midpoint(sample.lower, sample.upper) - middle));
  const up = new DelayShape(projected.map((sample) => Number(sample.upper - middle)));
  const down = new DelayShape(all.map((sample) => Number(middle - sample.lower)));
  const level = (up.floor - down.floor) / 2;
  const weigh = ageWeight(projected);
  const mean = weightedMean(offsets, projected.map(weigh));
  const weight = floorWeight(up, down, offsets, projected.map((sample) => Number(sample.roundTrip)));
  const blended = middle + saturating(roundAway(weight * level + (1 - weight) * mean));
  const offset = minBig(maxBig(blended, lower), upper);
  return { anchor, offset, errorBound: maxBig(offset - lower, upper - offset), drift };
}

/**
 * Samples widened by drift count less; samples of one burst count the same whatever their trip.
 * @param {ProjectedSample[]} samples
 */
function ageWeight(samples) {
  const typicalHalfTrip = samples.map((sample) => Number(sample.roundTrip) / 2).reduce((a, b) => a + b, 0) / samples.length;
  return (/** @type {ProjectedSample} */ sample) => {
    const spread = typicalHalfTrip + Number(sample.widening);
    return spread > 0 ? 1 / (spread * spread) : 1;
  };
}

/**
 * @param {number[]} values
 * @param {number[]} weights
 */
function weightedMean(values, weights) {
  const total = weights.reduce((a, b) => a + b, 0);
  let sum = 0;
  for (let index = 0; index < values.length; index++) sum += values[index] * weights[index];
  return sum / total;
}

/**
 * How much to trust the floors over the mean, from 0 to 1; fewer than four samples: the floors.
 * @param {DelayShape} up
 * @param {DelayShape} down
 * @param {number[]} offsets
 * @param {number[]} roundTrips
 */
function floorWeight(up, down, offsets, roundTrips) {
  if (offsets.length < 4) return 1;
  const correlation = pearsonCorrelation(offsets, roundTrips);
  const coupling = correlation === null ? 0 : correlation * correlation;
  const evidence = up.queueingEvidence + down.queueingEvidence + coupling;
  const position = (evidence - jitterEvidence) / (queueingEvidence - jitterEvidence);
  return Math.min(Math.max(position, 0), 1);
}

/** What a window of one-way delays (known up to a constant) says about how they are delayed. */
class DelayShape {
  /** @param {number[]} delays */
  constructor(delays) {
    this.sorted = delays.slice().sort((a, b) => a - b);
  }

  /** The floor under the delays, were they a floor plus an exponential wait. */
  get floor() {
    const n = this.sorted.length;
    if (n < 4) return this.sorted[0] ?? 0;
    let total = 0;
    for (let j = 0; j < n - 2; j++) total += (n - 1 - j) * (this.sorted[j + 1] - this.sorted[j]);
    const scale = total / (n - 2);
    return this.sorted[0] - scale / n;
  }

  /** How much better a floor plus an exponential wait explains the delays than a normal distribution. */
  get queueingEvidence() {
    const n = this.sorted.length;
    if (n < 2) return 0;
    const fastest = this.sorted[0];
    const mean = this.sorted.reduce((a, b) => a + b, 0) / n;
    const variance = this.sorted.map((x) => (x - mean) * (x - mean)).reduce((a, b) => a + b, 0) / n;
    const wait = mean - fastest;
    if (!(wait > 0) || !(variance > 0)) return 0;
    const exponential = -Math.log(wait) - 1;
    const normal = -0.5 * Math.log(2 * Math.PI * variance) - 0.5;
    return exponential - normal;
  }
}
