/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("../json/value.js").JSONValue} JSONValue */
/**
 * The stored form: `set` and `unset` members, each member's edit `times` (nanoseconds on the
 * server's clock), and the text each string member held `from` before the edits.
 * @typedef {{ set: JSONObject, unset: string[], times: { [member: string]: bigint }, from: { [member: string]: string } }} MemberEditsJSON
 */
export class MemberEdits {
    /**
     * The edits that take `old` to `neu`, member by member, made at `time`.
     * @param {JSONObject} old
     * @param {JSONObject} neu
     * @param {bigint | null} [time]
     */
    static between(old: JSONObject, neu: JSONObject, time?: bigint | null | undefined): MemberEdits;
    /** @param {MemberEditsJSON} json */
    static fromJSON(json: MemberEditsJSON): MemberEdits;
    /**
     * @param {JSONObject} [assigned]
     * @param {Set<string>} [removed]
     * @param {Map<string, bigint>} [times]
     * @param {Map<string, string>} [textBases]
     */
    constructor(assigned?: import("../json/value.js").JSONObject | undefined, removed?: Set<string> | undefined, times?: Map<string, bigint> | undefined, textBases?: Map<string, string> | undefined);
    assigned: import("../json/value.js").JSONObject;
    removed: Set<string>;
    times: Map<string, bigint>;
    textBases: Map<string, string>;
    get isEmpty(): boolean;
    /** @returns {Set<string>} */
    get members(): Set<string>;
    /**
     * These edits followed by `later`.
     * @param {MemberEdits} later
     */
    followedBy(later: MemberEdits): MemberEdits;
    /**
     * These edits merged into `object`, where `winning` are the members this change is the
     * latest writer of: a text edit is carried over wherever its patches find their place; any
     * other edit sets its member only if it wins.
     * @param {JSONObject} object
     * @param {Set<string>} winning
     * @returns {{ object: JSONObject, taken: Set<string> }}
     */
    mergedInto(object: JSONObject, winning: Set<string>): {
        object: JSONObject;
        taken: Set<string>;
    };
    /**
     * @param {string} name
     * @param {JSONValue | undefined} current
     * @returns {string | null}
     */
    mergedText(name: string, current: JSONValue | undefined): string | null;
    /** @returns {MemberEditsJSON} */
    toJSON(): MemberEditsJSON;
}
export type JSONObject = import("../json/value.js").JSONObject;
export type JSONValue = import("../json/value.js").JSONValue;
/**
 * The stored form: `set` and `unset` members, each member's edit `times` (nanoseconds on the
 * server's clock), and the text each string member held `from` before the edits.
 */
export type MemberEditsJSON = {
    set: JSONObject;
    unset: string[];
    times: {
        [member: string]: bigint;
    };
    from: {
        [member: string]: string;
    };
};
