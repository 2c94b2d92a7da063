// Edit times are nanoseconds since the epoch, about 1.8e18: past the 2^53 that a JavaScript
// number holds exactly, so JSON.parse would round them (by up to 128 ns), and a time rounded
// down could lose a tie it should win. This scanner reads the raw digits of the member `t` of
// each object of a JSON array (a batch of changes) as bigints, walking the text once.

/**
 * The `t` member of each element of the JSON array `text`, exactly; null where there is none.
 * @param {string} text
 * @returns {(bigint | null)[]}
 */
export function exactTimes(text) {
  /** @type {(bigint | null)[]} */
  const times = [];
  let depth = 0;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      // A string: at depth 2 and followed by a colon, it names a member of an element.
      const start = index + 1;
      index = endOfString(text, index + 1);
      if (depth === 2) {
        let next = index + 1;
        while (next < length && isSpace(text.charCodeAt(next))) next++;
        if (text.charCodeAt(next) === 0x3a && index - start === 1 && text.charCodeAt(start) === 0x74) {
          next++;
          while (next < length && isSpace(text.charCodeAt(next))) next++;
          const match = /^-?[0-9]+(?![.eE0-9])/.exec(text.slice(next, next + 24));
          if (match) times[times.length - 1] = BigInt(match[0]);
        }
      }
      index += 1;
      continue;
    }
    if (code === 0x7b || code === 0x5b) {
      depth++;
      if (depth === 2 && code === 0x7b) times.push(null);
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
    index++;
  }
  return times;
}

/**
 * The index of the quote that ends the string whose text starts at `index`.
 * @param {string} text
 * @param {number} index
 */
function endOfString(text, index) {
  for (;;) {
    const quote = text.indexOf('"', index);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
    index = quote + 1;
  }
}

/** @param {number} code */
const isSpace = (code) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
