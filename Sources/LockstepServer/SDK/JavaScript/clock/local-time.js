// The local clock the server's time is estimated on: monotonic, in nanoseconds. JavaScript has
// no clock that counts through sleep (Linux's CLOCK_BOOTTIME, Apple's continuous time), so
// this one adds to `performance.now()` every gap the wall clock shows that the monotonic clock
// did not count (a suspended laptop, a frozen tab), as CLOCK_BOOTTIME would have counted it.

/** Gaps shorter than this are scheduling noise, not sleep. */
const sleepThresholdMs = 1000;

export class LocalTime {
  constructor() {
    this.slept = 0;
    this.lastMonotonic = performance.now();
    this.lastWall = Date.now();
  }

  /**
   * Now, in nanoseconds on this clock.
   * @returns {bigint}
   */
  now() {
    const monotonic = performance.now();
    const wall = Date.now();
    const gap = (wall - this.lastWall) - (monotonic - this.lastMonotonic);
    if (gap > sleepThresholdMs) this.slept += gap;
    this.lastMonotonic = monotonic;
    this.lastWall = wall;
    return BigInt(Math.round((monotonic + this.slept) * 1e6));
  }

  /**
   * The milliseconds from now until this clock reads `instant`.
   * @param {bigint} instant
   */
  millisecondsUntil(instant) {
    return Number(instant - this.now()) / 1e6;
  }
}
