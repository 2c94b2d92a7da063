/**
 * The JSON type name LockstepCore uses in messages.
 * @param {unknown} value
 */
export function typeName(value: unknown): "string" | "number" | "bigint" | "boolean" | "symbol" | "undefined" | "object" | "function" | "integer" | "nothing" | "null" | "array";
/** @typedef {"malformed" | "unknownOperation" | "wrongType" | "indexOutOfRange" | "badTextDelta" | "numberOverflow"} DiffErrorKind */
/** @typedef {(string | number)[]} DiffPath  Member names and list indices from the top of the object. */
export class DiffError extends Error {
    /**
     * @param {DiffErrorKind} kind What went wrong.
     * @param {DiffPath} path Where.
     * @param {string} message What was wrong, in words.
     */
    constructor(kind: DiffErrorKind, path: DiffPath, message: string);
    kind: DiffErrorKind;
    path: DiffPath;
    reason: string;
}
export type DiffErrorKind = "malformed" | "unknownOperation" | "wrongType" | "indexOutOfRange" | "badTextDelta" | "numberOverflow";
/**
 * Member names and list indices from the top of the object.
 */
export type DiffPath = (string | number)[];
