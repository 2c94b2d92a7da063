// An object's reference to attachment bytes: a member `{"$blob": "sha256:<hex>", "size": n,
// "type": "image/jpeg"}`, at any depth, that any Simperium client sees as plain JSON.
import { isJSONObject } from "../json/value.js";

/** @typedef {import("../json/value.js").JSONValue} JSONValue */
/**
 * Binary data an object refers to, addressed by its SHA-256.
 * @typedef {object} Attachment
 * @property {string} sha256 64 lowercase hexadecimal digits.
 * @property {number} size Bytes.
 * @property {string} type The media type, e.g. "image/jpeg".
 */

const marker = "$blob";

/**
 * Whether `text` is a SHA-256 as Lockstep writes them.
 * @param {unknown} text
 * @returns {text is string}
 */
export const isHash = (text) => typeof text === "string" && /^[0-9a-f]{64}$/.test(text);

/**
 * The reference as an object's member holds it.
 * @param {Attachment} attachment
 * @returns {JSONValue}
 */
export function referenceJSON(attachment) {
  return { [marker]: "sha256:" + attachment.sha256, size: attachment.size, type: attachment.type };
}

/**
 * The attachment a member refers to; null for any other value (one without a size too).
 * @param {JSONValue | undefined} value
 * @returns {Attachment | null}
 */
export function attachmentOf(value) {
  if (!isJSONObject(value)) return null;
  const reference = value[marker];
  if (typeof reference !== "string" || !reference.startsWith("sha256:") || !isHash(reference.slice(7))) return null;
  const size = value.size;
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0) return null;
  return { sha256: reference.slice(7), size, type: typeof value.type === "string" ? value.type : "application/octet-stream" };
}

/**
 * Every attachment `value` refers to, at any depth.
 * @param {JSONValue | undefined} value
 * @returns {Attachment[]}
 */
export function references(value) {
  const attachment = attachmentOf(value);
  if (attachment) return [attachment];
  if (Array.isArray(value)) return value.flatMap(references);
  if (isJSONObject(value)) return Object.values(value).flatMap(references);
  return [];
}
