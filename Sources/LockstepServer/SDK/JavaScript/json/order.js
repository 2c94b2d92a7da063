// The order LockstepCore writes object members in: by their names' UTF-8 bytes, which is
// code point order (JavaScript's `<` compares UTF-16 code units, which differs for names with
// characters above U+FFFF against U+E000 to U+FFFF).

/**
 * Negative, zero or positive as `a` sorts before, with or after `b` in UTF-8 byte order.
 * @param {string} a @param {string} b
 */
export function compareUTF8(a, b) {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x === y) continue;
    // A surrogate (a code point above U+FFFF) sorts after every other unit in UTF-8.
    const xHigh = x >= 0xd800 && x < 0xe000;
    const yHigh = y >= 0xd800 && y < 0xe000;
    if (xHigh !== yHigh) return xHigh ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Whether `a` sorts before `b` in UTF-8 byte order (Swift's `a.utf8.lexicographicallyPrecedes(b.utf8)`).
 * @param {string} a @param {string} b
 */
export const precedesUTF8 = (a, b) => compareUTF8(a, b) < 0;
