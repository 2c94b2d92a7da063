// Rebasing one diff over a concurrent one: LockstepCore's `ObjectDiff.transformed(over:base:winner:)`.
// Edits to different members both land; increments add; nested objects and lists merge member
// by member and element by element; concurrent text edits merge as patches where they apply;
// anything else goes to the winner.
import { DiffError } from "./errors.js";
import { applyOperation } from "./apply.js";
import { applyListText, forms, listElements, listText, listTextDelta } from "./listtext.js";
import { isEmptyDiff, sortedIndices } from "./operations.js";
import { applyDelta, rebaseDelta } from "../text/textdelta.js";
import { isJSONObject, jsonEqual, member, put } from "../json/value.js";

/** @typedef {import("../json/value.js").JSONValue} JSONValue */
/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("./operations.js").Operation} Operation */
/** @typedef {import("./operations.js").ObjectDiff} ObjectDiff */
/** @typedef {import("./operations.js").ListDiff} ListDiff */
/** @typedef {import("./errors.js").DiffPath} DiffPath */
/**
 * Which of two concurrent edits keeps its effect where both cannot: "incoming" (the diff being
 * transformed) or "applied" (the one already applied).
 * @typedef {"incoming" | "applied"} ConflictWinner
 */

/**
 * `diff` rebased over `applied`, both made against `base`, so that it applies after `applied`.
 * Whenever the winner is decided the same way from both sides, both orders converge.
 * @param {ObjectDiff} diff @param {ObjectDiff} applied @param {JSONObject} base
 * @param {ConflictWinner} winner @param {DiffPath} [path]
 * @returns {ObjectDiff}
 */
export function transformObjectDiff(diff, applied, base, winner, path = []) {
  /** @type {ObjectDiff} */
  const result = {};
  for (const name of Object.keys(diff)) {
    const operation = /** @type {Operation} */ (diff[name]);
    const other = member(applied, name);
    if (other === undefined) {
      put(result, name, operation);
      continue;
    }
    const rebased = transformOperation(operation, other, member(base, name), winner, path.concat([name]));
    if (rebased) put(result, name, rebased);
  }
  return result;
}

/**
 * One operation rebased over another, both made against `base`; null when nothing is left.
 * @param {Operation} mine @param {Operation} theirs @param {JSONValue | undefined} base
 * @param {ConflictWinner} winner @param {DiffPath} path
 * @returns {Operation | null}
 */
function transformOperation(mine, theirs, base, winner, path) {
  if (mine.o === "I" && theirs.o === "I") return mine; // Increments commute.
  if (mine.o === "O" && theirs.o === "O" && isJSONObject(base)) {
    const rebased = transformObjectDiff(mine.v, theirs.v, base, winner, path);
    return isEmptyDiff(rebased) ? null : { o: "O", v: rebased };
  }
  if (mine.o === "L" && theirs.o === "L" && Array.isArray(base)) {
    const rebased = transformListDiff(mine.v, theirs.v, base, winner, path);
    return isEmptyDiff(rebased) ? null : { o: "L", v: rebased };
  }
  if (mine.o === "d" && theirs.o === "d" && typeof base === "string") {
    const outcome = rebaseText(mine.v, theirs.v, base, path);
    if (!("conflict" in outcome)) return outcome.rebased === null ? null : { o: "d", v: outcome.rebased };
  } else if (mine.o === "dL" && theirs.o === "dL" && Array.isArray(base)) {
    const outcome = rebaseListText(mine.v, theirs.v, base, path, true);
    if (!("conflict" in outcome)) return outcome.rebased === null ? null : { o: "dL", v: outcome.rebased };
  }
  return resolveConflict(mine, theirs, base, winner, path);
}

/**
 * Where two operations collide, the winner's resulting value stands, as a replace of the value
 * the applied operation left (never a text edit a later change would merge into).
 * @param {Operation} mine @param {Operation} theirs @param {JSONValue | undefined} base
 * @param {ConflictWinner} winner @param {DiffPath} path
 * @returns {Operation | null}
 */
function resolveConflict(mine, theirs, base, winner, path) {
  if (winner !== "incoming") return null;
  const mineValue = applyOperation(mine, base, path);
  const theirValue = applyOperation(theirs, base, path);
  if (theirValue === undefined && mineValue === undefined) return null;
  if (mineValue === undefined) return { o: "-" };
  if (theirValue === undefined) return { o: "+", v: mineValue };
  return { o: "r", v: mineValue };
}

/**
 * @param {string} mine @param {string} theirs @param {string} base @param {DiffPath} path
 * @returns {{ rebased: string | null } | { conflict: true }}
 */
function rebaseText(mine, theirs, base, path) {
  let theirText;
  try {
    theirText = applyDelta(theirs, base);
  } catch (error) {
    throw new DiffError("badTextDelta", path, `text delta does not apply: ${/** @type {Error} */ (error).message}`);
  }
  return rebaseTextOnto(mine, theirText, base, path);
}

/**
 * Rebases text delta `mine`, made against `base`, onto `theirText`.
 * @param {string} mine @param {string} theirText @param {string} base @param {DiffPath} path
 * @returns {{ rebased: string | null } | { conflict: true }}
 */
function rebaseTextOnto(mine, theirText, base, path) {
  try {
    return rebaseDelta(mine, theirText, base);
  } catch (error) {
    throw new DiffError("badTextDelta", path, `text delta does not apply: ${/** @type {Error} */ (error).message}`);
  }
}

/**
 * Rebases a `dL` delta over another by merging their texts, in the text form both fit; deltas
 * made in different forms are each rewritten in the reference form first.
 * @param {string} mine @param {string} theirs @param {JSONValue[]} base @param {DiffPath} path
 * @param {boolean} rewritingForms
 * @returns {{ rebased: string | null } | { conflict: true }}
 */
function rebaseListText(mine, theirs, base, path, rewritingForms) {
  for (const form of forms) {
    const text = listText(base, form);
    let theirText;
    try {
      theirText = applyDelta(theirs, text);
      applyDelta(mine, text);
    } catch {
      continue;
    }
    const outcome = rebaseText(mine, theirs, text, path);
    if ("conflict" in outcome) return outcome;
    if (outcome.rebased === null) return { rebased: null };
    const theirList = listElements(theirText, form);
    let mergedList = null;
    try {
      mergedList = listElements(applyDelta(outcome.rebased, theirText), form);
    } catch {
      mergedList = null;
    }
    if (!theirList || !mergedList) return { conflict: true };
    return jsonEqual(mergedList, theirList) ? { rebased: null } : { rebased: listTextDelta(theirList, mergedList) };
  }
  if (!rewritingForms) throw new DiffError("badTextDelta", path, "list deltas do not fit the list in any text form");
  const myList = applyListText(mine, base, path);
  const theirList = applyListText(theirs, base, path);
  return rebaseListText(listTextDelta(base, myList), listTextDelta(base, theirList), base, path, false);
}

/**
 * A list diff rebased over another, both made against `base`: elements both insert at one
 * place keep both, the winner's first; an element one removes and the other edits follows the
 * winner; elements both edit merge as values do.
 * @param {ListDiff} mine @param {ListDiff} theirs @param {JSONValue[]} base
 * @param {ConflictWinner} winner @param {DiffPath} path
 * @returns {ListDiff}
 */
function transformListDiff(mine, theirs, base, winner, path) {
  const my = listEdits(mine, base, path);
  const their = listEdits(theirs, base, path);
  const output = new ListDiffWriter();
  for (let anchor = 0; anchor <= base.length; anchor++) {
    const myInsertions = my.insertions.get(anchor) ?? [];
    const theirInsertions = their.insertions.get(anchor) ?? [];
    if (winner === "incoming") {
      for (const value of myInsertions) output.insert(value);
      for (let count = 0; count < theirInsertions.length; count++) output.keep();
    } else {
      for (let count = 0; count < theirInsertions.length; count++) output.keep();
      for (const value of myInsertions) output.insert(value);
    }
    if (anchor >= base.length) break;
    const myEdit = my.modifications.get(anchor);
    const theirEdit = their.modifications.get(anchor);
    if (their.removals.has(anchor)) {
      if (myEdit && winner === "incoming") {
        output.insert(/** @type {JSONValue} */ (applyOperation(myEdit, base[anchor], path.concat([anchor]))));
      }
    } else if (my.removals.has(anchor)) {
      if (theirEdit && winner === "applied") output.keep();
      else output.remove();
    } else if (myEdit) {
      if (theirEdit) {
        const rebased = transformOperation(myEdit, theirEdit, base[anchor], winner, path.concat([anchor]));
        if (rebased) output.modify(rebased);
        else output.keep();
      } else {
        output.modify(myEdit);
      }
    } else {
      output.keep();
    }
  }
  return output.diff;
}

/**
 * What a list diff does, in terms of the base list's elements rather than shifting indices.
 * @param {ListDiff} diff @param {JSONValue[]} base @param {DiffPath} path
 */
function listEdits(diff, base, path) {
  /** @type {Set<number>} */
  const removals = new Set();
  /** @type {Map<number, Operation>} */
  const modifications = new Map();
  /** @type {Map<number, JSONValue[]>} */
  const insertions = new Map();
  /** @type {({ base: number } | { inserted: JSONValue })[]} */
  const slots = base.map((_, index) => ({ base: index }));
  let removedCount = 0;
  for (const index of sortedIndices(diff)) {
    const operation = /** @type {Operation} */ (diff[String(index)]);
    const position = index - removedCount;
    const elementPath = path.concat([index]);
    const limit = operation.o === "+" ? slots.length : slots.length - 1;
    if (position < 0 || position > limit) {
      throw new DiffError("indexOutOfRange", elementPath, `index ${index} is out of range for a list of ${base.length} elements`);
    }
    const slot = slots[position];
    if (operation.o === "+") {
      slots.splice(position, 0, { inserted: operation.v });
    } else if (operation.o === "-") {
      if (slot && "base" in slot) removals.add(slot.base);
      slots.splice(position, 1);
      removedCount += 1;
    } else if (slot && "inserted" in slot) {
      slots[position] = { inserted: edit(slot.inserted, operation, elementPath) };
    } else if (slot) {
      const earlier = modifications.get(slot.base);
      if (earlier) {
        const once = edit(base[slot.base], earlier, elementPath);
        modifications.set(slot.base, { o: "r", v: edit(once, operation, elementPath) });
      } else {
        modifications.set(slot.base, operation);
      }
    }
  }
  /** @type {JSONValue[]} */
  let pending = [];
  for (const slot of slots) {
    if ("inserted" in slot) {
      pending.push(slot.inserted);
    } else {
      if (pending.length > 0) insertions.set(slot.base, pending);
      pending = [];
    }
  }
  if (pending.length > 0) insertions.set(base.length, pending);
  return { removals, modifications, insertions };
}

/** @param {JSONValue} value @param {Operation} operation @param {DiffPath} path @returns {JSONValue} */
function edit(value, operation, path) {
  const edited = applyOperation(operation, value, path);
  if (edited === undefined) throw new DiffError("malformed", path, `a list element cannot be removed by "${operation.o}"`);
  return edited;
}

/** Writes a list diff from a walk over the resulting list, in the jsondiff index convention. */
class ListDiffWriter {
  constructor() {
    /** @type {ListDiff} */
    this.diff = {};
    this.position = 0;
    this.removedCount = 0;
  }

  /** @param {JSONValue} value */
  insert(value) {
    this.diff[String(this.position + this.removedCount)] = { o: "+", v: value };
    this.position += 1;
  }

  keep() {
    this.position += 1;
  }

  /** @param {Operation} operation */
  modify(operation) {
    this.diff[String(this.position + this.removedCount)] = operation;
    this.position += 1;
  }

  remove() {
    this.diff[String(this.position + this.removedCount)] = { o: "-" };
    this.removedCount += 1;
  }
}
