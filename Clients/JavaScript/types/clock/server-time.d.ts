export class ServerTime {
    /**
     * @param {bigint} nanoseconds Nanoseconds since 1970-01-01T00:00:00Z on the server's clock.
     * @param {bigint} errorBound The largest distance between this and the true server time, in nanoseconds.
     */
    constructor(nanoseconds: bigint, errorBound: bigint);
    nanoseconds: bigint;
    errorBound: bigint;
    /** Milliseconds since the epoch (a number, as `Date.now()` gives). */
    get milliseconds(): number;
    /** The error bound in milliseconds. */
    get errorBoundMilliseconds(): number;
    /** The same instant as a Date (to the millisecond). */
    get date(): Date;
    /** The earliest the true server time can be, in nanoseconds. */
    get earliest(): bigint;
    /** The latest the true server time can be, in nanoseconds. */
    get latest(): bigint;
    /** ISO 8601 with milliseconds and the bound: `2025-06-01T07:00:00.123Z ± 12.4 ms`. */
    toString(): string;
}
