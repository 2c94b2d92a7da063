// A signal that tasks wait on: each `signal()` moves the generation on and wakes every waiter
// that saw an earlier one, so no signal between a check and a wait is lost.

export class Wakeup {
  constructor() {
    this.generation = 0;
    /** @type {Set<() => void>} */
    this.waiters = new Set();
  }

  signal() {
    this.generation += 1;
    const waiters = Array.from(this.waiters);
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  /**
   * Resolves (with the generation) once a signal came after `generation`, or `signal` aborts.
   * @param {number} generation
   * @param {AbortSignal} [abort]
   * @returns {Promise<number>}
   */
  wait(generation, abort) {
    if (this.generation > generation || abort?.aborted) return Promise.resolve(this.generation);
    return new Promise((resolve) => {
      const wake = () => {
        this.waiters.delete(wake);
        abort?.removeEventListener("abort", wake);
        resolve(this.generation);
      };
      this.waiters.add(wake);
      abort?.addEventListener("abort", wake, { once: true });
    });
  }
}

/**
 * Resolves after `milliseconds`, or at once when `abort` fires (then with `false`).
 * @param {number} milliseconds
 * @param {AbortSignal} [abort]
 * @returns {Promise<boolean>}
 */
export function sleep(milliseconds, abort) {
  if (abort?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      abort?.removeEventListener("abort", stop);
      resolve(true);
    }, Math.max(0, milliseconds));
    const stop = () => {
      clearTimeout(timer);
      resolve(false);
    };
    abort?.addEventListener("abort", stop, { once: true });
  });
}
