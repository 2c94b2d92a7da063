/** @typedef {null | boolean | number | string | JSONArray | JSONObject} JSONValue */
/** @typedef {{ [member: string]: JSONValue }} JSONObject */
/** @typedef {Array<JSONValue>} JSONArray */
/**
 * Whether two JSON values are equal: objects by their members whatever their order, strings
 * by their code units (their code points, for well-formed text), numbers by value.
 * @param {JSONValue | undefined} a @param {JSONValue | undefined} b
 * @returns {boolean}
 */
export function jsonEqual(a: JSONValue | undefined, b: JSONValue | undefined): boolean;
/**
 * Whether `value` is a JSON object (not an array, not null).
 * @param {unknown} value
 * @returns {value is JSONObject}
 */
export function isJSONObject(value: unknown): value is JSONObject;
/**
 * The member `name` of `object` if it has one of its own (not one of Object.prototype's).
 * @template T
 * @param {{ [name: string]: T }} object
 * @param {string} name
 * @returns {T | undefined}
 */
export function member<T>(object: {
    [name: string]: T;
}, name: string): T | undefined;
/**
 * Sets member `name` of `object` as an own data member, "__proto__" included (assigning that
 * name would set the object's prototype instead).
 * @template T @param {{ [name: string]: T }} object @param {string} name @param {T} value
 */
export function put<T>(object: {
    [name: string]: T;
}, name: string, value: T): void;
/**
 * A deep copy of a JSON value.
 * @template {JSONValue} T
 * @param {T} value
 * @returns {T}
 */
export function copyJSON<T extends JSONValue>(value: T): T;
/**
 * Checks that `value` is JSON that Lockstep can store, and throws a TypeError naming the path
 * of the first thing that is not: undefined, a function, NaN or an infinity, a class instance
 * (a Date, a Map), a cycle, or a string with a lone surrogate (not UTF-8).
 * @param {unknown} value @param {string} [path]
 * @returns {asserts value is JSONValue}
 */
export function assertJSON(value: unknown, path?: string | undefined): asserts value is JSONValue;
export type JSONValue = null | boolean | number | string | JSONValue[] | JSONObject;
export type JSONObject = {
    [member: string]: JSONValue;
};
export type JSONArray = Array<JSONValue>;
