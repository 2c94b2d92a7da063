// Applying diffs: LockstepCore's `ObjectDiff.apply(to:)`. A failed apply throws a DiffError
// naming the path of the first operation that does not fit, and changes nothing.
import { DiffError, typeName } from "./errors.js";
import { applyListText } from "./listtext.js";
import { applyDelta } from "../text/textdelta.js";
import { isJSONObject, member, put } from "../json/value.js";
import { sortedIndices } from "./operations.js";

/** @typedef {import("../json/value.js").JSONValue} JSONValue */
/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("./operations.js").Operation} Operation */
/** @typedef {import("./operations.js").ObjectDiff} ObjectDiff */
/** @typedef {import("./operations.js").ListDiff} ListDiff */
/** @typedef {import("./errors.js").DiffPath} DiffPath */

const INT64_MAX = 2 ** 63;

/**
 * The object `diff` turns `object` into; `object` is not changed.
 * @param {ObjectDiff} diff @param {JSONObject} object @param {DiffPath} [path]
 * @returns {JSONObject}
 */
export function applyObjectDiff(diff, object, path = []) {
  const result = { ...object };
  for (const name of Object.keys(diff)) {
    const value = applyOperation(/** @type {Operation} */ (diff[name]), member(object, name), path.concat([name]));
    if (value === undefined) delete result[name];
    else put(result, name, value);
  }
  return result;
}

/**
 * The value `operation` leaves where `value` was; undefined means the member is gone.
 * @param {Operation} operation @param {JSONValue | undefined} value @param {DiffPath} [path]
 * @returns {JSONValue | undefined}
 */
export function applyOperation(operation, value, path = []) {
  switch (operation.o) {
    case "+":
    case "r":
      return operation.v;
    case "-":
      return undefined;
    case "I":
      return add(operation.v, value, path);
    case "O":
      if (!isJSONObject(value)) throw mismatch(operation, value, path, "an object");
      return applyObjectDiff(operation.v, value, path);
    case "L":
      if (!Array.isArray(value)) throw mismatch(operation, value, path, "a list");
      return applyListDiff(operation.v, value, path);
    case "d":
      if (typeof value !== "string") throw mismatch(operation, value, path, "a string");
      try {
        return applyDelta(operation.v, value);
      } catch (error) {
        throw new DiffError("badTextDelta", path, `text delta does not apply: ${/** @type {Error} */ (error).message}`);
      }
    case "dL":
      if (!Array.isArray(value)) throw mismatch(operation, value, path, "a list");
      return applyListText(operation.v, value, path);
  }
}

/** @param {Operation} operation @param {JSONValue | undefined} value @param {DiffPath} path @param {string} expected */
function mismatch(operation, value, path, expected) {
  return new DiffError("wrongType", path, `operation "${operation.o}" needs ${expected} but finds ${typeName(value)}`);
}

/** @param {number} amount @param {JSONValue | undefined} value @param {DiffPath} path */
function add(amount, value, path) {
  if (value === undefined) throw new DiffError("wrongType", path, `operation "I" needs a number but finds nothing`);
  if (typeof value !== "number") throw new DiffError("wrongType", path, `operation "I" needs a number but finds ${typeName(value)}`);
  const sum = value + amount;
  if (Number.isInteger(value) && Number.isInteger(amount) && Math.abs(sum) >= INT64_MAX) {
    throw new DiffError("numberOverflow", path, `adding ${amount} to ${value} overflows a 64-bit integer`);
  }
  return sum;
}

/**
 * The list `diff` turns `elements` into. Indices count elements removed by earlier operations
 * of the diff as still there, and insertions as made: `{"1": -, "2": -}` removes the second and
 * third elements, `{"3": +x, "4": +y}` appends x then y to a list of three.
 * @param {ListDiff} diff @param {JSONValue[]} elements @param {DiffPath} [path]
 * @returns {JSONValue[]}
 */
export function applyListDiff(diff, elements, path = []) {
  const result = elements.slice();
  let removed = 0;
  for (const index of sortedIndices(diff)) {
    const operation = /** @type {Operation} */ (diff[String(index)]);
    const position = index - removed;
    const elementPath = path.concat([index]);
    const outOfRange = () => new DiffError(
      "indexOutOfRange", elementPath, `index ${index} is out of range for a list of ${elements.length} elements`);
    if (operation.o === "+") {
      if (position > result.length) throw outOfRange();
      result.splice(position, 0, operation.v);
    } else if (operation.o === "-") {
      if (position >= result.length) throw outOfRange();
      result.splice(position, 1);
      removed += 1;
    } else {
      if (position >= result.length) throw outOfRange();
      const value = applyOperation(operation, result[position], elementPath);
      if (value === undefined) {
        throw new DiffError("malformed", elementPath, `a list element cannot be removed by "${operation.o}"`);
      }
      result[position] = value;
    }
  }
  return result;
}
