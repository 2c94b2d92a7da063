/**
 * The diff that turns `old` into `neu`.
 * @param {JSONObject} old @param {JSONObject} neu @param {DiffSchema} [schema]
 * @returns {ObjectDiff}
 */
export function makeObjectDiff(old: JSONObject, neu: JSONObject, schema?: import("./schema.js").DiffSchema | undefined): ObjectDiff;
export type JSONValue = import("../json/value.js").JSONValue;
export type JSONObject = import("../json/value.js").JSONObject;
export type Operation = import("./operations.js").Operation;
export type ObjectDiff = import("./operations.js").ObjectDiff;
export type ListDiff = import("./operations.js").ListDiff;
export type DiffSchema = import("./schema.js").DiffSchema;
