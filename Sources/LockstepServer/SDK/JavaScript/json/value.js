// JSON values as plain JavaScript: objects, arrays, strings, numbers, booleans and null.
//
// JavaScript has one kind of number, so a value that LockstepCore keeps as the floating-point
// `2.0` reads here as the integer `2` (as `JSON.parse` reads it), and integers are exact only
// up to 2^53: both as in every JavaScript JSON library.

/** @typedef {null | boolean | number | string | JSONArray | JSONObject} JSONValue */
/** @typedef {{ [member: string]: JSONValue }} JSONObject */
/** @typedef {Array<JSONValue>} JSONArray */

/**
 * Whether two JSON values are equal: objects by their members whatever their order, strings
 * by their code units (their code points, for well-formed text), numbers by value.
 * @param {JSONValue | undefined} a @param {JSONValue | undefined} b
 * @returns {boolean}
 */
export function jsonEqual(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!jsonEqual(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, key) || !jsonEqual(a[key], b[key])) return false;
  }
  return true;
}

/**
 * Whether `value` is a JSON object (not an array, not null).
 * @param {unknown} value
 * @returns {value is JSONObject}
 */
export function isJSONObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The member `name` of `object` if it has one of its own (not one of Object.prototype's).
 * @template T
 * @param {{ [name: string]: T }} object
 * @param {string} name
 * @returns {T | undefined}
 */
export function member(object, name) {
  return Object.prototype.hasOwnProperty.call(object, name) ? object[name] : undefined;
}

/**
 * Sets member `name` of `object` as an own data member, "__proto__" included (assigning that
 * name would set the object's prototype instead).
 * @template T @param {{ [name: string]: T }} object @param {string} name @param {T} value
 */
export function put(object, name, value) {
  if (name === "__proto__") Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
  else object[name] = value;
}

/**
 * A deep copy of a JSON value.
 * @template {JSONValue} T
 * @param {T} value
 * @returns {T}
 */
export function copyJSON(value) {
  return value === null || typeof value !== "object" ? value : JSON.parse(JSON.stringify(value));
}

/**
 * Checks that `value` is JSON that Lockstep can store, and throws a TypeError naming the path
 * of the first thing that is not: undefined, a function, NaN or an infinity, a class instance
 * (a Date, a Map), a cycle, or a string with a lone surrogate (not UTF-8).
 * @param {unknown} value @param {string} [path]
 * @returns {asserts value is JSONValue}
 */
export function assertJSON(value, path = "") {
  check(value, path || "the value", new Set());
}

/** @param {unknown} value @param {string} path @param {Set<object>} open */
function check(value, path, open) {
  switch (typeof value) {
    case "boolean":
      return;
    case "string":
      if (!isWellFormed(value)) throw new TypeError(`${path} holds a lone surrogate, which is not text (not UTF-8)`);
      return;
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`${path} is ${value}, which JSON cannot hold`);
      return;
    case "object": {
      if (value === null) return;
      if (open.has(value)) throw new TypeError(`${path} refers to itself`);
      open.add(value);
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) check(value[index], `${path}[${index}]`, open);
      } else {
        const prototype = Object.getPrototypeOf(value);
        if (prototype !== Object.prototype && prototype !== null) {
          throw new TypeError(`${path} is a ${value.constructor?.name ?? "class instance"}, not a plain JSON object`);
        }
        for (const [name, member] of Object.entries(value)) {
          if (!isWellFormed(name)) throw new TypeError(`${path} has a member name with a lone surrogate`);
          check(member, `${path}.${name}`, open);
        }
      }
      open.delete(value);
      return;
    }
    default:
      throw new TypeError(`${path} is ${typeof value}, which JSON cannot hold`);
  }
}

/**
 * Whether a string is well-formed UTF-16 (no lone surrogate).
 * @param {string} text
 */
function isWellFormed(text) {
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0xd800 || unit >= 0xe000) continue;
    if (unit >= 0xdc00) return false;
    const next = text.charCodeAt(index + 1);
    if (!(next >= 0xdc00 && next < 0xe000)) return false;
    index++;
  }
  return true;
}
