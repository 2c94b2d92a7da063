/**
 * The list as text in `form`: compact JSON per element each followed by a newline (Python's
 * with non-ASCII escaped), or newline-joined with strings quoted unescaped (simperium-ios).
 * @param {JSONValue[]} elements @param {Form} form
 */
export function listText(elements: JSONValue[], form: Form): string;
/**
 * The elements of a list's text in `form`; null when a line is not a JSON value.
 * @param {string} text @param {Form} form
 * @returns {JSONValue[] | null}
 */
export function listElements(text: string, form: Form): JSONValue[] | null;
/**
 * Applies a `dL` delta in whichever text form it was made against.
 * @param {string} delta @param {JSONValue[]} elements @param {import("./errors.js").DiffPath} path
 * @returns {JSONValue[]}
 */
export function applyListText(delta: string, elements: JSONValue[], path: import("./errors.js").DiffPath): JSONValue[];
/**
 * The `dL` delta from one list to another, in the reference form.
 * @param {JSONValue[]} old @param {JSONValue[]} neu
 */
export function listTextDelta(old: JSONValue[], neu: JSONValue[]): string;
/** @typedef {import("../json/value.js").JSONValue} JSONValue */
/** @typedef {"reference" | "asciiEscaped" | "apple"} Form */
/** @type {Form[]} */
export const forms: Form[];
export type JSONValue = import("../json/value.js").JSONValue;
export type Form = "reference" | "asciiEscaped" | "apple";
