/**
 * The reference as an object's member holds it.
 * @param {Attachment} attachment
 * @returns {JSONValue}
 */
export function referenceJSON(attachment: Attachment): JSONValue;
/**
 * The attachment a member refers to; null for any other value (one without a size too).
 * @param {JSONValue | undefined} value
 * @returns {Attachment | null}
 */
export function attachmentOf(value: JSONValue | undefined): Attachment | null;
/**
 * Every attachment `value` refers to, at any depth.
 * @param {JSONValue | undefined} value
 * @returns {Attachment[]}
 */
export function references(value: JSONValue | undefined): Attachment[];
export function isHash(text: unknown): text is string;
export type JSONValue = import("../json/value.js").JSONValue;
/**
 * Binary data an object refers to, addressed by its SHA-256.
 */
export type Attachment = {
    /**
     * 64 lowercase hexadecimal digits.
     */
    sha256: string;
    /**
     * Bytes.
     */
    size: number;
    /**
     * The media type, e.g. "image/jpeg".
     */
    type: string;
};
