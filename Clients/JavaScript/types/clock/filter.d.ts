/**
 * The estimate at local instant `anchor`, or null when the samples' bounds do not intersect
 * (the server's clock stepped, or the drift exceeded its bound).
 * @param {ClockSample[]} samples
 * @param {bigint} anchor
 * @param {ClockDrift} drift
 * @returns {ClockEstimate | null}
 */
export function estimateOffset(samples: ClockSample[], anchor: bigint, drift: ClockDrift): ClockEstimate | null;
export type ClockSample = import("./sample.js").ClockSample;
export type ClockDrift = import("./drift.js").ClockDrift;
export type ClockEstimate = import("./drift.js").ClockEstimate;
/**
 * A sample's bounds carried to another local instant, widened by the drift's uncertainty.
 */
export type ProjectedSample = {
    lower: bigint;
    upper: bigint;
    roundTrip: bigint;
    widening: bigint;
    upLegIsTypical: boolean;
};
import { roundTrip } from "./sample.js";
