// Writes JSON exactly as LockstepCore's JSONSerializer does, so that both ends of a sync (and
// the tests that compare them) get the same bytes: members in UTF-8 order of their names,
// non-ASCII as UTF-8, floating-point numbers in Swift's shortest form.
import { compareUTF8 } from "./order.js";

/** @typedef {import("./value.js").JSONValue} JSONValue */

const TWO_TO_THE_53 = 2 ** 53;
const TWO_TO_THE_63 = 2 ** 63;

/**
 * The value as compact JSON text, as LockstepCore writes it. A bigint (an edit time in
 * nanoseconds) is written as the integer it is; members whose value is undefined are left out.
 * @param {JSONValue | bigint | { [member: string]: unknown } | unknown[]} value
 * @returns {string}
 */
export function serialize(value) {
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "string":
      return JSON.stringify(value);
    case "number":
      return formatNumber(value);
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) return "[" + value.map((element) => serialize(/** @type {any} */ (element))).join(",") + "]";
      const object = /** @type {{ [member: string]: any }} */ (value);
      const keys = Object.keys(object).filter((key) => object[key] !== undefined).sort(compareUTF8);
      return "{" + keys.map((key) => JSON.stringify(key) + ":" + serialize(object[key])).join(",") + "}";
    }
    default:
      return "null";
  }
}

/**
 * A number as LockstepCore writes it: an integral value within 64 bits as an integer; anything
 * else as Swift writes a `Double`, in decimal from 1e-4 to 2^53 (with ".0" when integral) and
 * in exponent form otherwise (`1e+16`, `2.5e-07`).
 * @param {number} value
 */
function formatNumber(value) {
  if (!Number.isFinite(value)) return "null";
  if (Number.isInteger(value) && Math.abs(value) < TWO_TO_THE_63) {
    return Math.abs(value) < 1e21 ? BigInt(value).toString() : String(value);
  }
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-4 && magnitude <= TWO_TO_THE_53) {
    const text = String(value);
    return text.includes(".") ? text : text + ".0";
  }
  // Shortest round-trip digits, with Swift's exponent of at least two digits.
  const [mantissa, exponent] = value.toExponential().split("e");
  const sign = exponent[0] === "-" ? "-" : "+";
  const digits = exponent.replace(/^[+-]/, "");
  return mantissa + "e" + sign + (digits.length < 2 ? "0" + digits : digits);
}
