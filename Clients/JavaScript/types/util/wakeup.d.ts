/**
 * Resolves after `milliseconds`, or at once when `abort` fires (then with `false`).
 * @param {number} milliseconds
 * @param {AbortSignal} [abort]
 * @returns {Promise<boolean>}
 */
export function sleep(milliseconds: number, abort?: AbortSignal | undefined): Promise<boolean>;
export class Wakeup {
    generation: number;
    /** @type {Set<() => void>} */
    waiters: Set<() => void>;
    signal(): void;
    /**
     * Resolves (with the generation) once a signal came after `generation`, or `signal` aborts.
     * @param {number} generation
     * @param {AbortSignal} [abort]
     * @returns {Promise<number>}
     */
    wait(generation: number, abort?: AbortSignal | undefined): Promise<number>;
}
