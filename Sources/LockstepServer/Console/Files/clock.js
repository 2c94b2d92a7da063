// The browser's offset from the server's clock, from NTP-style exchanges with GET /time:
// t1 (sent) and t4 (received) on this page's clock, t2 and t3 on the server's. Each exchange
// bounds the offset, t3 − t4 ≤ offset ≤ t2 − t1, and the page combines every exchange of the
// last two minutes as ServerClock does on a link that jitters alike both ways (LockstepCore's
// OffsetFilter, its mean and that mean's uncertainty; the page has no drift model, so it
// allows the 100 ppm tolerance for an exchange's age, as ServerClock does before it measures
// the drift):
// - bound: the intersection of every exchange's bounds, each widened by 100 ppm of its age;
//   it holds whatever the network does;
// - offset: the mean of the exchanges' offsets, each weighted by 1 / (h + s)² (h the mean half
//   round trip, s its widening, so older exchanges fade), kept inside the bound;
// - uncertainty: Student's t at 99.9 % times the mean's standard error, plus the weighted mean
//   widening, from six exchanges on (the bound before); never more than the bound.
// All in milliseconds.

const samples = [];
const estimates = [];
const span = 120_000;
const tolerance = 100e-6;

/** This page's clock, in milliseconds since the epoch, with sub-millisecond precision. */
export const localNow = () => performance.timeOrigin + performance.now();

/** One exchange; returns the sample {at, offset, lower, upper, bound, roundTrip} in milliseconds. */
export async function exchange() {
  const t1 = localNow();
  // Integer nanoseconds are past a double's precision: sent as text, and t1 kept here.
  const nanoseconds = (BigInt(Math.floor(t1 * 1000)) * 1000n).toString();
  const response = await fetch(`/time?t1=${nanoseconds}`, { cache: "no-store", credentials: "omit" });
  const body = await response.json();
  const t4 = localNow();
  const t2 = body.t2 / 1e6;
  const t3 = body.t3 / 1e6;
  const sample = { at: (t1 + t4) / 2, lower: t3 - t4, upper: t2 - t1 };
  sample.offset = (sample.lower + sample.upper) / 2;
  sample.bound = Math.max((sample.upper - sample.lower) / 2, 0.001);
  sample.roundTrip = sample.upper - sample.lower;
  samples.push(sample);
  while (samples.length > 0 && samples[0].at < t4 - span) samples.shift();
  const current = combine(t4);
  if (current) estimates.push(current);
  while (estimates.length > 0 && estimates[0].at < t4 - span) estimates.shift();
  return sample;
}

/** The exchanges of the window combined at this page's instant `at`, or null before any. */
function combine(at) {
  if (samples.length === 0) return null;
  const widened = samples.map((sample) => ({ sample, widening: tolerance * Math.abs(at - sample.at) + 0.001 }));
  const lower = Math.max(...widened.map(({ sample, widening }) => sample.lower - widening));
  const upper = Math.min(...widened.map(({ sample, widening }) => sample.upper + widening));
  if (lower > upper) {
    // A clock stepped: start again from the newest exchange.
    samples.splice(0, samples.length - 1);
    return combine(at);
  }
  const half = samples.reduce((sum, sample) => sum + sample.roundTrip / 2, 0) / samples.length;
  const weights = widened.map(({ widening }) => 1 / (half + widening) ** 2);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const mean = widened.reduce((sum, { sample }, index) => sum + weights[index] * sample.offset, 0) / total;
  const offset = Math.min(Math.max(mean, lower), upper);
  const bound = Math.max(offset - lower, upper - offset, 0.001);
  const count = samples.length;
  const effective = total ** 2 / weights.reduce((sum, weight) => sum + weight * weight, 0);
  let uncertainty = bound;
  if (count >= 6 && effective >= 6) {
    const spread = widened.reduce((sum, { sample }, index) => sum + (weights[index] * (sample.offset - mean)) ** 2, 0);
    const standardError = Math.sqrt((count / (count - 1)) * spread) / total;
    const drift = widened.reduce((sum, { widening }, index) => sum + weights[index] * widening, 0) / total;
    uncertainty = Math.min(studentT999(effective - 1) * standardError + drift, bound);
  }
  return { at, offset, bound, uncertainty, count };
}

/** Student's t at 99.9 % two-sided for `df` degrees of freedom (Cornish–Fisher, as LockstepCore's studentT999). */
function studentT999(df) {
  const z = 3.290526731491926;
  const terms = [
    (z ** 3 + z) / 4,
    (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96,
    (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384,
    (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160,
  ];
  return terms.reduce((t, term, index) => t + term / df ** (index + 1), z);
}

/** The current estimate {at, offset, bound, uncertainty, count}, or null before the first exchange. */
export function estimate() {
  return estimates.at(-1) ?? null;
}

/** The exchanges of the last two minutes, oldest first. */
export function history() {
  return samples.slice();
}

/** The page's estimate after each exchange of the last two minutes, oldest first: how it converged. */
export function estimateHistory() {
  return estimates.slice();
}

/** Server time now, in ms, by the estimate (this page's clock until one is made). */
export function serverNow() {
  return localNow() + (estimate()?.offset ?? 0);
}

/** Makes exchanges until there are `count` samples (a few quick ones for a first estimate). */
export async function calibrate(count = 5) {
  while (samples.length < count) await exchange();
  return estimate();
}
