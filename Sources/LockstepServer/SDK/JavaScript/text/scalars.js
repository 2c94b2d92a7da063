// Strings as arrays of Unicode scalar values (code points), the alphabet every text-diff
// algorithm in this folder works in, as LockstepCore's does: an edit can never end between the
// two halves of a surrogate pair, and only the delta format counts UTF-16 code units.

/**
 * The string's code points, in order.
 * @param {string} text
 * @returns {number[]}
 */
export function scalarsOf(text) {
  const scalars = new Array(text.length);
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit < 0xdc00 && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next < 0xe000) {
        scalars[count++] = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
        index++;
        continue;
      }
    }
    scalars[count++] = unit;
  }
  scalars.length = count;
  return scalars;
}

/** The largest Unicode scalar value; values above it pad patches (see patch.js). */
export const LARGEST_SCALAR = 0x10ffff;

/**
 * The value if it is a Unicode scalar value, else U+FFFD (the padding of patches, a lone surrogate).
 * @param {number} value
 */
export function validOrReplacement(value) {
  return value < 0xd800 || (value >= 0xe000 && value <= LARGEST_SCALAR) ? value : 0xfffd;
}

/**
 * A string made of code points; values that are not scalars become U+FFFD.
 * @param {readonly number[]} scalars
 * @param {number} [start]
 * @param {number} [end]
 * @returns {string}
 */
export function stringOf(scalars, start = 0, end = scalars.length) {
  let text = "";
  const chunk = 4096;
  for (let from = start; from < end; from += chunk) {
    const piece = [];
    const to = Math.min(end, from + chunk);
    for (let index = from; index < to; index++) piece.push(validOrReplacement(scalars[index]));
    text += String.fromCodePoint(...piece);
  }
  return text;
}

/**
 * The length in UTF-16 code units, as JavaScript, Java, NSString and Simperium count: a scalar
 * above U+FFFF takes two.
 * @param {readonly number[]} scalars
 * @param {number} [start]
 * @param {number} [end]
 */
export function utf16Count(scalars, start = 0, end = scalars.length) {
  let count = end - start;
  for (let index = start; index < end; index++) if (scalars[index] > 0xffff) count++;
  return count;
}

/**
 * Whether two runs of scalars are equal.
 * @param {readonly number[]} a
 * @param {readonly number[]} b
 */
export function sameScalars(a, b) {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}
