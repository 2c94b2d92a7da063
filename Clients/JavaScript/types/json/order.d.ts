/**
 * Negative, zero or positive as `a` sorts before, with or after `b` in UTF-8 byte order.
 * @param {string} a @param {string} b
 */
export function compareUTF8(a: string, b: string): number;
export function precedesUTF8(a: string, b: string): boolean;
