// Why a diff cannot be read, applied or transformed, and where in the object: LockstepCore's
// DiffError, with the same kinds and messages.

/** @typedef {"malformed" | "unknownOperation" | "wrongType" | "indexOutOfRange" | "badTextDelta" | "numberOverflow"} DiffErrorKind */
/** @typedef {(string | number)[]} DiffPath  Member names and list indices from the top of the object. */

export class DiffError extends Error {
  /**
   * @param {DiffErrorKind} kind What went wrong.
   * @param {DiffPath} path Where.
   * @param {string} message What was wrong, in words.
   */
  constructor(kind, path, message) {
    super(path.length === 0 ? message : `at ${describePath(path)}: ${message}`);
    this.name = "DiffError";
    this.kind = kind;
    this.path = path;
    this.reason = message;
  }
}

/**
 * A path written like `title`, `tags[2]` or `meta.author`; other names as `["a b"]`.
 * @param {DiffPath} path
 */
function describePath(path) {
  let text = "";
  for (const component of path) {
    if (typeof component === "number") text += `[${component}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(component)) text += text === "" ? component : "." + component;
    else text += "[" + JSON.stringify(component) + "]";
  }
  return text;
}

/**
 * The JSON type name LockstepCore uses in messages.
 * @param {unknown} value
 */
export function typeName(value) {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "boolean") return "boolean";
  return typeof value;
}
