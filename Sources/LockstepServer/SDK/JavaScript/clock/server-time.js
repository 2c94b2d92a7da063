// A moment on the server's clock, with how far it may be from the truth: a guarantee derived
// from the exchanges, not a standard deviation.

export class ServerTime {
  /**
   * @param {bigint} nanoseconds Nanoseconds since 1970-01-01T00:00:00Z on the server's clock.
   * @param {bigint} errorBound The largest distance between this and the true server time, in nanoseconds.
   */
  constructor(nanoseconds, errorBound) {
    this.nanoseconds = nanoseconds;
    this.errorBound = errorBound;
  }

  /** Milliseconds since the epoch (a number, as `Date.now()` gives). */
  get milliseconds() {
    return Number(this.nanoseconds / 1000n) / 1000;
  }

  /** The error bound in milliseconds. */
  get errorBoundMilliseconds() {
    return Number(this.errorBound) / 1e6;
  }

  /** The same instant as a Date (to the millisecond). */
  get date() {
    return new Date(Math.floor(this.milliseconds));
  }

  /** The earliest the true server time can be, in nanoseconds. */
  get earliest() {
    return this.nanoseconds - this.errorBound;
  }

  /** The latest the true server time can be, in nanoseconds. */
  get latest() {
    return this.nanoseconds + this.errorBound;
  }

  /** ISO 8601 with milliseconds and the bound: `2025-06-01T07:00:00.123Z ± 12.4 ms`. */
  toString() {
    const tenths = (this.errorBound + 50_000n) / 100_000n;
    return `${this.date.toISOString()} ± ${tenths / 10n}.${tenths % 10n} ms`;
  }
}
