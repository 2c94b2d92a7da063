// Swift's integer and rounding rules, on bigints (Int64) and numbers (Double), so that the clock
// estimate here is LockstepCore's to the nanosecond.

export const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/**
 * `Int64(saturating:)`: a number to a bigint, clamped to 64 bits, NaN as 0, truncated.
 * @param {number} value
 */
export function saturating(value) {
  if (Number.isNaN(value)) return 0n;
  if (value >= 2 ** 63) return INT64_MAX;
  if (value < -(2 ** 63)) return INT64_MIN;
  return BigInt(Math.trunc(value));
}

/**
 * Swift's `rounded()`: to the nearest, halves away from zero (Math.round rounds -2.5 to -2).
 * @param {number} value
 */
export const roundAway = (value) => (value < 0 ? -Math.round(-value) : Math.round(value));

/** @param {bigint} value */
export const magnitude = (value) => (value < 0n ? -value : value);

/** @param {bigint} a @param {bigint} b */
export const maxBig = (a, b) => (a > b ? a : b);
/** @param {bigint} a @param {bigint} b */
export const minBig = (a, b) => (a < b ? a : b);

/**
 * The midpoint of a range, rounded towards zero, without overflow.
 * @param {bigint} lower
 * @param {bigint} upper
 */
export const midpoint = (lower, upper) => lower + (upper - lower) / 2n;

/**
 * Pearson's correlation of two equally long series, or null when either is constant.
 * @param {number[]} xs
 * @param {number[]} ys
 */
export function pearsonCorrelation(xs, ys) {
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanY = ys.reduce((a, b) => a + b, 0) / ys.length;
  let covariance = 0;
  let varianceX = 0;
  let varianceY = 0;
  for (let index = 0; index < xs.length; index++) {
    covariance += (xs[index] - meanX) * (ys[index] - meanY);
    varianceX += (xs[index] - meanX) * (xs[index] - meanX);
    varianceY += (ys[index] - meanY) * (ys[index] - meanY);
  }
  if (!(varianceX > 0) || !(varianceY > 0)) return null;
  return covariance / Math.sqrt(varianceX * varianceY);
}

/**
 * The least-squares slope of `ys` against `xs`, or null when all `xs` are equal.
 * @param {number[]} xs
 * @param {number[]} ys
 */
export function leastSquaresSlope(xs, ys) {
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanY = ys.reduce((a, b) => a + b, 0) / ys.length;
  let covariance = 0;
  let varianceX = 0;
  for (let index = 0; index < xs.length; index++) {
    covariance += (xs[index] - meanX) * (ys[index] - meanY);
    varianceX += (xs[index] - meanX) * (xs[index] - meanX);
  }
  if (!(varianceX > 0)) return null;
  return covariance / varianceX;
}
