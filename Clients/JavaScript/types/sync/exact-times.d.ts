/**
 * The `t` member of each element of the JSON array `text`, exactly; null where there is none.
 * @param {string} text
 * @returns {(bigint | null)[]}
 */
export function exactTimes(text: string): (bigint | null)[];
