/**
 * The drift the rounds imply, or null when no constant rate within the tolerance fits them all.
 * @param {ClockEstimate[]} rounds
 * @param {EstimatorConfiguration} configuration
 * @returns {ClockDrift | null}
 */
export function driftOf(rounds: ClockEstimate[], configuration: EstimatorConfiguration): ClockDrift | null;
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
export const defaultEstimatorConfiguration: EstimatorConfiguration;
export function unmeasured(tolerance: number): ClockDrift;
export function offsetChange(drift: ClockDrift, nanoseconds: bigint): bigint;
export function boundGrowth(drift: ClockDrift, nanoseconds: bigint): bigint;
export type ClockDrift = {
    /**
     * The server's rate over the local rate, minus one.
     */
    rate: number;
    /**
     * The true rate lies within rate ± rateBound.
     */
    rateBound: number;
};
/**
 * What the client knows of the server's clock at one local instant.
 */
export type ClockEstimate = {
    /**
     * The local instant at which offset and errorBound hold.
     */
    anchor: bigint;
    /**
     * Server time minus local time at the anchor.
     */
    offset: bigint;
    /**
     * The largest possible error of the offset at the anchor.
     */
    errorBound: bigint;
    drift: ClockDrift;
};
export type EstimatorConfiguration = {
    /**
     * Samples the offset comes from (32).
     */
    sampleWindow: number;
    /**
     * Rounds the drift comes from (64).
     */
    roundWindow: number;
    /**
     * How long the rounds must span before their slope is trusted (15 min).
     */
    minimumDriftSpan: bigint;
    /**
     * The largest rate difference assumed until measured (100 ppm).
     */
    frequencyTolerance: number;
};
