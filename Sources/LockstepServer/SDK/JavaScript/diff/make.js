// Making diffs: LockstepCore's `ObjectDiff(from:to:schema:)`, which writes only the operations
// every client can apply (`+ - r O d`) unless a schema asks for others.
import { jsonEqual, isJSONObject, member, put } from "../json/value.js";
import { makeDelta } from "../text/textdelta.js";
import { listTextDelta } from "./listtext.js";

/** @typedef {import("../json/value.js").JSONValue} JSONValue */
/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("./operations.js").Operation} Operation */
/** @typedef {import("./operations.js").ObjectDiff} ObjectDiff */
/** @typedef {import("./operations.js").ListDiff} ListDiff */
/** @typedef {import("./schema.js").DiffSchema} DiffSchema */

const INT64_MAX = 2 ** 63;

/**
 * The diff that turns `old` into `neu`.
 * @param {JSONObject} old @param {JSONObject} neu @param {DiffSchema} [schema]
 * @returns {ObjectDiff}
 */
export function makeObjectDiff(old, neu, schema) {
  /** @type {ObjectDiff} */
  const diff = {};
  for (const name of Object.keys(old)) {
    const newValue = member(neu, name);
    if (newValue === undefined) {
      put(diff, name, { o: "-" });
      continue;
    }
    const operation = makeOperation(/** @type {JSONValue} */ (old[name]), newValue, schema && member(schema.members, name));
    if (operation) put(diff, name, operation);
  }
  for (const name of Object.keys(neu)) {
    if (member(old, name) === undefined) put(diff, name, { o: "+", v: /** @type {JSONValue} */ (neu[name]) });
  }
  return diff;
}

/**
 * The operation that turns `old` into `neu`, or null when they are equal.
 * @param {JSONValue} old @param {JSONValue} neu @param {DiffSchema} [schema]
 * @returns {Operation | null}
 */
function makeOperation(old, neu, schema) {
  if (jsonEqual(old, neu)) return null;
  const otype = schema?.otype;
  if (otype === "replace") return { o: "r", v: neu };
  if (otype === "integer" && typeof old === "number" && typeof neu === "number") {
    const step = neu - old;
    if (Number.isInteger(old) && Number.isInteger(neu) && Math.abs(step) >= INT64_MAX) return { o: "r", v: neu };
    return { o: "I", v: step };
  }
  if (otype === "list" && Array.isArray(old) && Array.isArray(neu)) return { o: "L", v: makeListDiff(old, neu, schema?.item) };
  if (otype === "list_dmp" && Array.isArray(old) && Array.isArray(neu)) return { o: "dL", v: listTextDelta(old, neu) };
  if (isJSONObject(old) && isJSONObject(neu)) return { o: "O", v: makeObjectDiff(old, neu, schema) };
  if (typeof old === "string" && typeof neu === "string") return { o: "d", v: makeDelta(old, neu) };
  return { o: "r", v: neu };
}

/**
 * The index diff that turns `old` into `neu`: the common ends kept, the elements between
 * diffed pairwise, the longer side's extra elements removed or inserted.
 * @param {JSONValue[]} old @param {JSONValue[]} neu @param {DiffSchema} [itemSchema]
 * @returns {ListDiff}
 */
function makeListDiff(old, neu, itemSchema) {
  let prefix = 0;
  while (prefix < old.length && prefix < neu.length && jsonEqual(old[prefix], neu[prefix])) prefix++;
  let suffix = 0;
  while (suffix < old.length - prefix && suffix < neu.length - prefix
    && jsonEqual(old[old.length - 1 - suffix], neu[neu.length - 1 - suffix])) suffix++;
  const oldMiddle = old.slice(prefix, old.length - suffix);
  const newMiddle = neu.slice(prefix, neu.length - suffix);
  /** @type {ListDiff} */
  const diff = {};
  for (let offset = 0; offset < Math.max(oldMiddle.length, newMiddle.length); offset++) {
    const index = String(prefix + offset);
    if (offset < oldMiddle.length && offset < newMiddle.length) {
      const operation = makeOperation(oldMiddle[offset], newMiddle[offset], itemSchema);
      if (operation) diff[index] = operation;
    } else if (offset < oldMiddle.length) {
      diff[index] = { o: "-" };
    } else {
      diff[index] = { o: "+", v: newMiddle[offset] };
    }
  }
  return diff;
}
