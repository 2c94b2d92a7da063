/**
 * The object `diff` turns `object` into; `object` is not changed.
 * @param {ObjectDiff} diff @param {JSONObject} object @param {DiffPath} [path]
 * @returns {JSONObject}
 */
export function applyObjectDiff(diff: ObjectDiff, object: JSONObject, path?: import("./errors.js").DiffPath | undefined): JSONObject;
/**
 * The value `operation` leaves where `value` was; undefined means the member is gone.
 * @param {Operation} operation @param {JSONValue | undefined} value @param {DiffPath} [path]
 * @returns {JSONValue | undefined}
 */
export function applyOperation(operation: Operation, value: JSONValue | undefined, path?: import("./errors.js").DiffPath | undefined): JSONValue | undefined;
/**
 * The list `diff` turns `elements` into. Indices count elements removed by earlier operations
 * of the diff as still there, and insertions as made: `{"1": -, "2": -}` removes the second and
 * third elements, `{"3": +x, "4": +y}` appends x then y to a list of three.
 * @param {ListDiff} diff @param {JSONValue[]} elements @param {DiffPath} [path]
 * @returns {JSONValue[]}
 */
export function applyListDiff(diff: ListDiff, elements: JSONValue[], path?: import("./errors.js").DiffPath | undefined): JSONValue[];
export type JSONValue = import("../json/value.js").JSONValue;
export type JSONObject = import("../json/value.js").JSONObject;
export type Operation = import("./operations.js").Operation;
export type ObjectDiff = import("./operations.js").ObjectDiff;
export type ListDiff = import("./operations.js").ListDiff;
export type DiffPath = import("./errors.js").DiffPath;
