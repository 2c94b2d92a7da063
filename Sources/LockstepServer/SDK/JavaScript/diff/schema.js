// Hints that ask the differ for a particular operation where the default is another: the
// `otype` policies of Simperium's jsondiff, read as LockstepCore's DiffSchema reads them.
import { DiffError, typeName } from "./errors.js";
import { isJSONObject, put } from "../json/value.js";

/**
 * @typedef {object} DiffSchema
 * @property {"replace" | "list" | "list_dmp" | "integer" | "string" | undefined} otype
 * @property {{ [member: string]: DiffSchema }} members
 * @property {DiffSchema | undefined} item
 */

const operationTypes = ["replace", "list", "list_dmp", "integer", "string"];

/**
 * Reads a schema from its JSON form, `{"count": {"otype": "integer"}}`; a hint may nest
 * `attributes` for an object's members and `item` for a list's elements.
 * @param {unknown} json @param {import("./errors.js").DiffPath} [path]
 * @returns {DiffSchema}
 */
export function readSchema(json, path = []) {
  if (!isJSONObject(json)) throw new DiffError("malformed", path, `a schema must be an object, not ${typeName(json)}`);
  let fields = { ...json };
  /** @type {DiffSchema} */
  const schema = { otype: undefined, members: {}, item: undefined };
  const otype = fields.otype;
  delete fields.otype;
  if (typeof otype === "string") {
    if (!operationTypes.includes(otype)) throw new DiffError("unknownOperation", path, `unknown otype "${otype}"`);
    schema.otype = /** @type {DiffSchema["otype"]} */ (otype);
  }
  if (Object.prototype.hasOwnProperty.call(fields, "item")) {
    schema.item = readSchema(fields.item, path.concat(["item"]));
    delete fields.item;
  }
  const attributes = fields.attributes;
  if (isJSONObject(attributes)) {
    delete fields.attributes;
    fields = { ...attributes };
  }
  for (const [name, member] of Object.entries(fields)) put(schema.members, name, readSchema(member, path.concat([name])));
  return schema;
}
