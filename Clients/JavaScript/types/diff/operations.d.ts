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
export function readObjectDiff(json: unknown, path?: import("./errors.js").DiffPath | undefined): ObjectDiff;
/**
 * Whether the operation sets the member whatever it was (`+`, `-`, `r`), rather than editing
 * within it or adding to it: a write that concurrent writes collide with whole.
 * @param {Operation} operation
 */
export function setsWholeValue(operation: Operation): boolean;
/**
 * The indices of a list diff, ascending.
 * @param {ListDiff} diff
 */
export function sortedIndices(diff: ListDiff): number[];
export function isEmptyDiff(diff: ObjectDiff | ListDiff): boolean;
export type JSONValue = import("../json/value.js").JSONValue;
export type JSONObject = import("../json/value.js").JSONObject;
export type DiffPath = import("./errors.js").DiffPath;
/**
 * One operation of a jsondiff: `+` add, `-` remove, `r` replace, `I` add a number, `O` change
 * members of an object, `L` change elements of a list by index, `d` edit a string with a
 * delta, `dL` edit a list through a delta of its lines.
 */
export type Operation = {
    o: "+" | "r";
    v: JSONValue;
} | {
    o: "-";
} | {
    o: "I";
    v: number;
} | {
    o: "O";
    v: ObjectDiff;
} | {
    o: "L";
    v: ListDiff;
} | {
    o: "d" | "dL";
    v: string;
};
/**
 * The operation of each member that changes.
 */
export type ObjectDiff = {
    [member: string]: Operation;
};
/**
 * Operations keyed by decimal index (see applyListDiff).
 */
export type ListDiff = {
    [index: string]: Operation;
};
