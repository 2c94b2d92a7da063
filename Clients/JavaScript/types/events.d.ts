/** @typedef {import("./json/value.js").JSONObject} JSONObject */
/**
 * Who caused a change: this client, the server (another device), a refusal of a local change,
 * or the loss of the space the bucket belongs to.
 * @typedef {{ type: "local" } | { type: "remote" } | { type: "rejected", code: number, message: string | null }
 *   | { type: "revoked", message: string }} Origin
 */
/**
 * Something that happened to an object, as the app sees it.
 * @typedef {object} Change
 * @property {"inserted" | "updated" | "deleted"} kind
 * @property {string} bucket The bucket's name (a space's is `__<space>.<bucket>`).
 * @property {string} key
 * @property {JSONObject | null} object The object after the change; null when deleted.
 * @property {Origin} origin
 */
/** A change of an object, dispatched as the `change` event of its bucket and of the client. */
export class ChangeEvent extends Event {
    /** @param {Change} change */
    constructor(change: Change);
    kind: "inserted" | "updated" | "deleted";
    bucket: string;
    key: string;
    origin: Origin;
    change: Change;
    /** The object after the change (a copy, made when first read); null when deleted. */
    get object(): import("./json/value.js").JSONObject | null;
}
/**
 * An event that carries one value as `detail`: `statechange`, `transfer`, `spacelost`.
 * @template T
 */
export class DetailEvent<T> extends Event {
    /**
     * @param {string} type
     * @param {T} detail
     */
    constructor(type: string, detail: T);
    detail: T;
}
export type JSONObject = import("./json/value.js").JSONObject;
/**
 * Who caused a change: this client, the server (another device), a refusal of a local change,
 * or the loss of the space the bucket belongs to.
 */
export type Origin = {
    type: "local";
} | {
    type: "remote";
} | {
    type: "rejected";
    code: number;
    message: string | null;
} | {
    type: "revoked";
    message: string;
};
/**
 * Something that happened to an object, as the app sees it.
 */
export type Change = {
    kind: "inserted" | "updated" | "deleted";
    /**
     * The bucket's name (a space's is `__<space>.<bucket>`).
     */
    bucket: string;
    key: string;
    /**
     * The object after the change; null when deleted.
     */
    object: JSONObject | null;
    origin: Origin;
};
