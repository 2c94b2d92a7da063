// The jsondiff wire format, `{"key": {"o": "d", "v": "=6\t+!"}}`, read with every operation's
// shape checked before anything is applied, as LockstepCore's `ObjectDiff(json:)` does.
import { DiffError, typeName } from "./errors.js";
import { isJSONObject, put } from "../json/value.js";

/** @typedef {import("../json/value.js").JSONValue} JSONValue */
/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("./errors.js").DiffPath} DiffPath */
/**
 * One operation of a jsondiff: `+` add, `-` remove, `r` replace, `I` add a number, `O` change
 * members of an object, `L` change elements of a list by index, `d` edit a string with a
 * delta, `dL` edit a list through a delta of its lines.
 * @typedef {{ o: "+" | "r", v: JSONValue } | { o: "-" } | { o: "I", v: number } | { o: "O", v: ObjectDiff }
 *   | { o: "L", v: ListDiff } | { o: "d" | "dL", v: string }} Operation
 */
/** @typedef {{ [member: string]: Operation }} ObjectDiff  The operation of each member that changes. */
/** @typedef {{ [index: string]: Operation }} ListDiff  Operations keyed by decimal index (see applyListDiff). */

/**
 * Reads an object diff from its JSON, checking every operation's shape.
 * @param {unknown} json @param {DiffPath} [path]
 * @returns {ObjectDiff}
 * @throws {DiffError}
 */
export function readObjectDiff(json, path = []) {
  if (!isJSONObject(json)) throw new DiffError("malformed", path, `an object diff must be a JSON object, not ${typeName(json)}`);
  /** @type {ObjectDiff} */
  const diff = {};
  for (const [name, member] of Object.entries(json)) put(diff, name, readOperation(member, path.concat([name])));
  return diff;
}

/**
 * @param {unknown} json @param {DiffPath} path
 * @returns {ListDiff}
 */
function readListDiff(json, path) {
  if (!isJSONObject(json)) {
    throw new DiffError("malformed", path, `a list diff must be a JSON object keyed by index, not ${typeName(json)}`);
  }
  /** @type {ListDiff} */
  const diff = {};
  for (const [key, member] of Object.entries(json)) {
    if (!/^[0-9]{1,9}$/.test(key)) {
      throw new DiffError("malformed", path, `a list diff key must be a non-negative decimal index, not "${key}"`);
    }
    const index = Number(key);
    diff[String(index)] = readOperation(member, path.concat([index]));
  }
  return diff;
}

/**
 * Reads one operation, `{"o": …, "v": …}`.
 * @param {unknown} json @param {DiffPath} [path]
 * @returns {Operation}
 */
function readOperation(json, path = []) {
  if (!isJSONObject(json)) {
    throw new DiffError("malformed", path, `an operation must be an object like {"o":"r","v":…}, not ${typeName(json)}`);
  }
  const code = json.o;
  if (typeof code !== "string") throw new DiffError("malformed", path, `an operation needs a string "o"`);
  const hasValue = Object.prototype.hasOwnProperty.call(json, "v");
  const value = () => {
    if (!hasValue) throw new DiffError("malformed", path, `operation "${code}" needs a "v"`);
    return json.v;
  };
  const text = () => {
    const delta = value();
    if (typeof delta !== "string") throw new DiffError("malformed", path, `operation "${code}" needs a string delta in "v"`);
    return delta;
  };
  switch (code) {
    case "+": return { o: "+", v: value() };
    case "-": return { o: "-" };
    case "r": return { o: "r", v: value() };
    case "I": {
      const amount = value();
      if (typeof amount !== "number") {
        throw new DiffError("malformed", path, `operation "I" needs a number in "v", not ${typeName(amount)}`);
      }
      return { o: "I", v: amount };
    }
    case "O": return { o: "O", v: readObjectDiff(value(), path) };
    case "L": return { o: "L", v: readListDiff(value(), path) };
    case "d": return { o: "d", v: text() };
    case "dL": return { o: "dL", v: text() };
    default: throw new DiffError("unknownOperation", path, `unknown operation "${code}"`);
  }
}

/**
 * Whether the operation sets the member whatever it was (`+`, `-`, `r`), rather than editing
 * within it or adding to it: a write that concurrent writes collide with whole.
 * @param {Operation} operation
 */
export function setsWholeValue(operation) {
  return operation.o === "+" || operation.o === "-" || operation.o === "r";
}

/**
 * The indices of a list diff, ascending.
 * @param {ListDiff} diff
 */
export function sortedIndices(diff) {
  return Object.keys(diff).map(Number).sort((a, b) => a - b);
}

/**
 * Whether a diff changes nothing.
 * @param {ObjectDiff | ListDiff} diff
 */
export const isEmptyDiff = (diff) => Object.keys(diff).length === 0;
