// Differences between two JSON values: as a jsondiff (the wire's object diff, with the
// operations every client applies: + - r O L) and as highlighted lines of text.

const equal = (a, b) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]));
  }
  return value;
}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/** The object diff that turns object `a` into object `b`: {member: {o, v}}. Empty when they are equal. */
export function objectDiff(a, b) {
  const diff = {};
  for (const key of Object.keys(a)) {
    if (!(key in b)) diff[key] = { o: "-" };
  }
  for (const [key, value] of Object.entries(b)) {
    if (!(key in a)) diff[key] = { o: "+", v: value };
    else if (!equal(a[key], value)) diff[key] = valueDiff(a[key], value);
  }
  return diff;
}

/** One member's change: nested objects by member (O), same-length lists by index (L), else a replacement (r). */
function valueDiff(a, b) {
  if (isObject(a) && isObject(b)) return { o: "O", v: objectDiff(a, b) };
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    const items = {};
    a.forEach((item, index) => {
      if (!equal(item, b[index])) items[index] = valueDiff(item, b[index]);
    });
    return { o: "L", v: items };
  }
  return { o: "r", v: b };
}

/** JSON with sorted members, two-space indent: the same object always reads the same. */
export function pretty(value) {
  return JSON.stringify(canonical(value), null, 2);
}

/** Lines of `a` and `b` as [kind, text] with kind " ", "-" or "+" (longest common subsequence). */
export function lineDiff(a, b) {
  const x = a.split("\n");
  const y = b.split("\n");
  const n = x.length;
  const m = y.length;
  const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i][j] = x[i] === y[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push([" ", x[i++]]);
      j++;
    } else if (lengths[i + 1][j] >= lengths[i][j + 1]) out.push(["-", x[i++]]);
    else out.push(["+", y[j++]]);
  }
  while (i < n) out.push(["-", x[i++]]);
  while (j < m) out.push(["+", y[j++]]);
  return out;
}
