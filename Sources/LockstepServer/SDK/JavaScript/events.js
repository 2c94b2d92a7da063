// The events a client delivers, both as DOM-style events (addEventListener) and as the plain
// objects its async iterators yield.

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
  constructor(change) {
    super("change");
    this.kind = change.kind;
    this.bucket = change.bucket;
    this.key = change.key;
    this.origin = change.origin;
    this.change = change;
  }

  /** The object after the change (a copy, made when first read); null when deleted. */
  get object() {
    return this.change.object;
  }
}

/**
 * An event that carries one value as `detail`: `statechange`, `transfer`, `spacelost`.
 * @template T
 */
export class DetailEvent extends Event {
  /**
   * @param {string} type
   * @param {T} detail
   */
  constructor(type, detail) {
    super(type);
    this.detail = detail;
  }
}
