/**
 * The string's code points, in order.
 * @param {string} text
 * @returns {number[]}
 */
export function scalarsOf(text: string): number[];
/**
 * The value if it is a Unicode scalar value, else U+FFFD (the padding of patches, a lone surrogate).
 * @param {number} value
 */
export function validOrReplacement(value: number): number;
/**
 * A string made of code points; values that are not scalars become U+FFFD.
 * @param {readonly number[]} scalars
 * @param {number} [start]
 * @param {number} [end]
 * @returns {string}
 */
export function stringOf(scalars: readonly number[], start?: number | undefined, end?: number | undefined): string;
/**
 * The length in UTF-16 code units, as JavaScript, Java, NSString and Simperium count: a scalar
 * above U+FFFF takes two.
 * @param {readonly number[]} scalars
 * @param {number} [start]
 * @param {number} [end]
 */
export function utf16Count(scalars: readonly number[], start?: number | undefined, end?: number | undefined): number;
/**
 * Whether two runs of scalars are equal.
 * @param {readonly number[]} a
 * @param {readonly number[]} b
 */
export function sameScalars(a: readonly number[], b: readonly number[]): boolean;
/** The largest Unicode scalar value; values above it pad patches (see patch.js). */
export const LARGEST_SCALAR: 1114111;
