// The top-level members a change sets and unsets (the Swift SDK's MemberEdits): how a change is
// sent once it no longer stands alone for its object. Unlike a jsondiff, member edits apply to
// any version: a member goes to its latest writer, except a string edited into another string,
// which keeps the text it was made from and is carried over as a text patch.
import { jsonEqual, member, put } from "../json/value.js";
import { mergeText } from "../text/textdelta.js";

/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("../json/value.js").JSONValue} JSONValue */
/**
 * The stored form: `set` and `unset` members, each member's edit `times` (nanoseconds on the
 * server's clock), and the text each string member held `from` before the edits.
 * @typedef {{ set: JSONObject, unset: string[], times: { [member: string]: bigint }, from: { [member: string]: string } }} MemberEditsJSON
 */

export class MemberEdits {
  /**
   * @param {JSONObject} [assigned]
   * @param {Set<string>} [removed]
   * @param {Map<string, bigint>} [times]
   * @param {Map<string, string>} [textBases]
   */
  constructor(assigned = {}, removed = new Set(), times = new Map(), textBases = new Map()) {
    this.assigned = assigned;
    this.removed = removed;
    this.times = times;
    this.textBases = textBases;
  }

  /**
   * The edits that take `old` to `neu`, member by member, made at `time`.
   * @param {JSONObject} old
   * @param {JSONObject} neu
   * @param {bigint | null} [time]
   */
  static between(old, neu, time = null) {
    const edits = new MemberEdits();
    for (const name of Object.keys(neu)) {
      const before = member(old, name);
      const value = /** @type {JSONValue} */ (neu[name]);
      if (before !== undefined && jsonEqual(before, value)) continue;
      put(edits.assigned, name, value);
      if (typeof before === "string" && typeof value === "string") edits.textBases.set(name, before);
    }
    for (const name of Object.keys(old)) if (member(neu, name) === undefined) edits.removed.add(name);
    if (time !== null) for (const name of edits.members) edits.times.set(name, time);
    return edits;
  }

  get isEmpty() {
    return Object.keys(this.assigned).length === 0 && this.removed.size === 0;
  }

  /** @returns {Set<string>} */
  get members() {
    return new Set([...Object.keys(this.assigned), ...this.removed]);
  }

  /**
   * These edits followed by `later`.
   * @param {MemberEdits} later
   */
  followedBy(later) {
    const merged = new MemberEdits({ ...this.assigned }, new Set(this.removed), new Map(this.times), new Map(this.textBases));
    const mine = this.members;
    for (const name of Object.keys(later.assigned)) {
      // Text edited twice goes from the first edit's base; text not touched yet from the later's.
      const base = mine.has(name) ? this.textBases.get(name) : later.textBases.get(name);
      if (later.textBases.get(name) === undefined || base === undefined) merged.textBases.delete(name);
      else merged.textBases.set(name, base);
      put(merged.assigned, name, /** @type {JSONValue} */ (later.assigned[name]));
      merged.removed.delete(name);
    }
    for (const name of later.removed) {
      delete merged.assigned[name];
      merged.removed.add(name);
      merged.textBases.delete(name);
    }
    for (const name of later.members) {
      const time = later.times.get(name);
      if (time === undefined) merged.times.delete(name);
      else merged.times.set(name, time);
    }
    return merged;
  }

  /**
   * These edits merged into `object`, where `winning` are the members this change is the
   * latest writer of: a text edit is carried over wherever its patches find their place; any
   * other edit sets its member only if it wins.
   * @param {JSONObject} object
   * @param {Set<string>} winning
   * @returns {{ object: JSONObject, taken: Set<string> }}
   */
  mergedInto(object, winning) {
    const result = { ...object };
    const taken = new Set();
    for (const name of this.members) {
      const text = this.mergedText(name, member(object, name));
      if (text !== null) put(result, name, text);
      else if (winning.has(name)) {
        const value = member(this.assigned, name);
        if (value === undefined) delete result[name];
        else put(result, name, value);
      } else continue;
      taken.add(name);
    }
    return { object: result, taken };
  }

  /**
   * @param {string} name
   * @param {JSONValue | undefined} current
   * @returns {string | null}
   */
  mergedText(name, current) {
    const base = this.textBases.get(name);
    const edited = member(this.assigned, name);
    if (base === undefined || typeof edited !== "string" || typeof current !== "string") return null;
    return mergeText(base, edited, current);
  }

  /** @returns {MemberEditsJSON} */
  toJSON() {
    return {
      set: this.assigned, unset: Array.from(this.removed).sort(),
      times: Object.fromEntries(this.times), from: Object.fromEntries(this.textBases),
    };
  }

  /** @param {MemberEditsJSON} json */
  static fromJSON(json) {
    return new MemberEdits(
      { ...json.set }, new Set(json.unset), new Map(Object.entries(json.times ?? {}).map(([name, time]) => [name, BigInt(time)])),
      new Map(Object.entries(json.from ?? {}).filter(([name]) => typeof member(json.set, name) === "string")));
  }
}
