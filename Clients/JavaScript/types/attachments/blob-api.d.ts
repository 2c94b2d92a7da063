/**
 * The SHA-256 of `bytes`, as 64 lowercase hexadecimal digits.
 * @param {Blob} bytes
 */
export function sha256Of(bytes: Blob): Promise<string>;
export class BlobAPI {
    /** @param {ServerAPI} api */
    constructor(api: ServerAPI);
    api: import("../sync/server-api.js").ServerAPI;
    /**
     * @param {string} method
     * @param {string} url
     * @param {Record<string, string>} headers
     * @param {BodyInit} [body]
     * @param {number} [timeoutMs]
     */
    send(method: string, url: string, headers: Record<string, string>, body?: BodyInit | undefined, timeoutMs?: number | undefined): Promise<{
        status: number;
        headers: Headers;
        text: string;
    }>;
    get root(): string;
    /**
     * Creates the upload of `attachment` (or finds this user's upload of it under way, or done):
     * its location, and the bytes the server holds already.
     * @param {Attachment} attachment
     * @returns {Promise<{ location: string, offset: number }>}
     */
    create(attachment: Attachment): Promise<{
        location: string;
        offset: number;
    }>;
    /**
     * The bytes the server holds of the upload at `location`; null when it has no such upload.
     * @param {string} location
     * @returns {Promise<number | null>}
     */
    offset(location: string): Promise<number | null>;
    /**
     * Sends `bytes` as the upload's content from `offset`.
     * @param {string} location
     * @param {number} offset
     * @param {Blob} bytes
     * @returns {Promise<PatchOutcome>}
     */
    patch(location: string, offset: number, bytes: Blob): Promise<PatchOutcome>;
    /**
     * Blob `sha256`'s bytes, reporting the bytes received so far as they come.
     * @param {string} sha256
     * @param {(received: number) => void} progress
     * @returns {Promise<Blob>}
     */
    download(sha256: string, progress: (received: number) => void): Promise<Blob>;
}
export type ServerAPI = import("../sync/server-api.js").ServerAPI;
export type Attachment = import("./reference.js").Attachment;
export type PatchOutcome = {
    kind: "offset";
    offset: number;
} | {
    kind: "conflict";
} | {
    kind: "hashMismatch";
    message: string;
};
