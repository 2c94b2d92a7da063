/** @typedef {import("./sample.js").ClockSample} ClockSample */
/** @typedef {import("./drift.js").ClockEstimate} ClockEstimate */
/** @typedef {import("./drift.js").ClockDrift} ClockDrift */
/** @typedef {import("./drift.js").EstimatorConfiguration} EstimatorConfiguration */
export class ClockEstimator {
    /** @param {EstimatorConfiguration} [configuration] */
    constructor(configuration?: import("./drift.js").EstimatorConfiguration | undefined);
    configuration: import("./drift.js").EstimatorConfiguration;
    /** @type {{ samples: ClockSample[], rounds: ClockEstimate[], openRound: ClockSample[] }} */
    history: {
        samples: ClockSample[];
        rounds: ClockEstimate[];
        openRound: ClockSample[];
    };
    /** @type {ClockDrift} */
    drift: ClockDrift;
    /** @type {ClockEstimate | null} */
    estimate: ClockEstimate | null;
    /**
     * Adds one exchange of the round in progress; false, changing nothing, for an implausible one.
     * @param {ClockSample} sample
     */
    record(sample: ClockSample): boolean;
    /** Closes the round in progress: its samples become one point of the drift's history. */
    completeRound(): void;
    updateDrift(): void;
    updateEstimate(): void;
    /** A clock jumped: every round is suspect, and the drift starts over from the rounds that follow. */
    forgetRoundsAfterContradiction(): void;
}
export type ClockSample = import("./sample.js").ClockSample;
export type ClockEstimate = import("./drift.js").ClockEstimate;
export type ClockDrift = import("./drift.js").ClockDrift;
export type EstimatorConfiguration = import("./drift.js").EstimatorConfiguration;
