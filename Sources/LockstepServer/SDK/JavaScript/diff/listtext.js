// The text form of a list that `dL` deltas edit, one JSON element per line, in each of the
// forms Simperium's clients write (LockstepCore's ListText): a delta records its source length,
// so the form it fits is the one it was made in.
import { serialize } from "../json/serialize.js";
import { applyDelta, makeDelta } from "../text/textdelta.js";
import { DiffError } from "./errors.js";

/** @typedef {import("../json/value.js").JSONValue} JSONValue */
/** @typedef {"reference" | "asciiEscaped" | "apple"} Form */

/** @type {Form[]} */
export const forms = ["reference", "asciiEscaped", "apple"];

/**
 * The list as text in `form`: compact JSON per element each followed by a newline (Python's
 * with non-ASCII escaped), or newline-joined with strings quoted unescaped (simperium-ios).
 * @param {JSONValue[]} elements @param {Form} form
 */
export function listText(elements, form) {
  switch (form) {
    case "reference": return elements.map((element) => serialize(element) + "\n").join("");
    case "asciiEscaped": return elements.map((element) => escapingNonASCII(serialize(element)) + "\n").join("");
    default: return elements.map((element) => (typeof element === "string" ? `"${element}"` : serialize(element))).join("\n");
  }
}

/**
 * The elements of a list's text in `form`; null when a line is not a JSON value.
 * @param {string} text @param {Form} form
 * @returns {JSONValue[] | null}
 */
export function listElements(text, form) {
  /** @type {JSONValue[]} */
  const elements = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      elements.push(JSON.parse(line));
    } catch {
      if (form === "apple" && line.length >= 2 && line.startsWith('"') && line.endsWith('"')) elements.push(line.slice(1, -1));
      else return null;
    }
  }
  return elements;
}

/**
 * Applies a `dL` delta in whichever text form it was made against.
 * @param {string} delta @param {JSONValue[]} elements @param {import("./errors.js").DiffPath} path
 * @returns {JSONValue[]}
 */
export function applyListText(delta, elements, path) {
  let lastError = "no text form of the list fits the delta";
  for (const form of forms) {
    let edited;
    try {
      edited = applyDelta(delta, listText(elements, form));
    } catch (error) {
      lastError = `list delta does not apply: ${/** @type {Error} */ (error).message}`;
      continue;
    }
    const result = listElements(edited, form);
    if (!result) throw new DiffError("badTextDelta", path, "list delta leaves a line that is not a JSON value");
    return result;
  }
  throw new DiffError("badTextDelta", path, lastError);
}

/**
 * The `dL` delta from one list to another, in the reference form.
 * @param {JSONValue[]} old @param {JSONValue[]} neu
 */
export function listTextDelta(old, neu) {
  return makeDelta(listText(old, "reference"), listText(neu, "reference"));
}

/** @param {string} json */
function escapingNonASCII(json) {
  let result = "";
  for (let index = 0; index < json.length; index++) {
    const unit = json.charCodeAt(index);
    result += unit < 0x80 ? json[index] : "\\u" + unit.toString(16).padStart(4, "0");
  }
  return result;
}
