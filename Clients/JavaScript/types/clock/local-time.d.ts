export class LocalTime {
    slept: number;
    lastMonotonic: number;
    lastWall: number;
    /**
     * Now, in nanoseconds on this clock.
     * @returns {bigint}
     */
    now(): bigint;
    /**
     * The milliseconds from now until this clock reads `instant`.
     * @param {bigint} instant
     */
    millisecondsUntil(instant: bigint): number;
}
