/**
 * The value as compact JSON text, as LockstepCore writes it. A bigint (an edit time in
 * nanoseconds) is written as the integer it is; members whose value is undefined are left out.
 * @param {JSONValue | bigint | { [member: string]: unknown } | unknown[]} value
 * @returns {string}
 */
export function serialize(value: bigint | unknown[] | import("./value.js").JSONValue | {
    [member: string]: unknown;
}): string;
export type JSONValue = import("./value.js").JSONValue;
