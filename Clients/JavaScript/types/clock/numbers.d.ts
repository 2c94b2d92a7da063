/**
 * `Int64(saturating:)`: a number to a bigint, clamped to 64 bits, NaN as 0, truncated.
 * @param {number} value
 */
export function saturating(value: number): bigint;
/**
 * Pearson's correlation of two equally long series, or null when either is constant.
 * @param {number[]} xs
 * @param {number[]} ys
 */
export function pearsonCorrelation(xs: number[], ys: number[]): number | null;
/**
 * The least-squares slope of `ys` against `xs`, or null when all `xs` are equal.
 * @param {number[]} xs
 * @param {number[]} ys
 */
export function leastSquaresSlope(xs: number[], ys: number[]): number | null;
export const INT64_MAX: bigint;
export function roundAway(value: number): number;
export function magnitude(value: bigint): bigint;
export function maxBig(a: bigint, b: bigint): bigint;
export function minBig(a: bigint, b: bigint): bigint;
export function midpoint(lower: bigint, upper: bigint): bigint;
