// The server's blob endpoints as the client speaks them (the Swift SDK's BlobAPI): uploads by
// tus 1.0.0 (core and creation: POST to create, HEAD for the offset, PATCH from it) and plain
// GET downloads, under `/1/{app}/__blobs__` with the user's token. A transient failure throws
// a LockstepError the caller retries; a refusal retrying cannot change, an AttachmentError.
import { AttachmentError, LockstepError, httpError } from "../errors.js";

/** @typedef {import("../sync/server-api.js").ServerAPI} ServerAPI */
/** @typedef {import("./reference.js").Attachment} Attachment */
/** @typedef {{ kind: "offset", offset: number } | { kind: "conflict" } | { kind: "hashMismatch", message: string }} PatchOutcome */

/** @param {string} text */
const base64 = (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

export class BlobAPI {
  /** @param {ServerAPI} api */
  constructor(api) {
    this.api = api;
  }

  /**
   * @param {string} method
   * @param {string} url
   * @param {Record<string, string>} headers
   * @param {BodyInit} [body]
   * @param {number} [timeoutMs]
   */
  async send(method, url, headers, body, timeoutMs = 60_000) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const response = await this.api.fetch(url, {
        method, headers: { "X-Simperium-Token": this.api.token, "Tus-Resumable": "1.0.0", ...headers }, body, signal: controller.signal,
      });
      const text = method === "HEAD" ? "" : await response.text();
      if (response.status === 401) throw httpError(401, text, `${method} ${url}`);
      return { status: response.status, headers: response.headers, text };
    } catch (error) {
      if (error instanceof LockstepError) throw error;
      throw new LockstepError("network", `${method} ${url}: ${/** @type {Error} */ (error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  get root() {
    return `${this.api.root}/__blobs__`;
  }

  /**
   * Creates the upload of `attachment` (or finds this user's upload of it under way, or done):
   * its location, and the bytes the server holds already.
   * @param {Attachment} attachment
   * @returns {Promise<{ location: string, offset: number }>}
   */
  async create(attachment) {
    const answer = await this.send("POST", this.root, {
      "Upload-Length": String(attachment.size),
      "Upload-Metadata": `sha256 ${base64(attachment.sha256)},type ${base64(attachment.type)}`,
    });
    if (answer.status === 200 || answer.status === 201) {
      const location = answer.headers.get("Location");
      const offset = Number(answer.headers.get("Upload-Offset"));
      if (!location || !Number.isInteger(offset)) throw new LockstepError("protocol", "an upload created without Location or Upload-Offset");
      return { location: new URL(location, this.api.baseURL).href, offset };
    }
    if ([400, 403, 413, 415].includes(answer.status)) throw refused(answer.status, answer.text);
    throw httpError(answer.status, answer.text, "creating an upload");
  }

  /**
   * The bytes the server holds of the upload at `location`; null when it has no such upload.
   * @param {string} location
   * @returns {Promise<number | null>}
   */
  async offset(location) {
    const answer = await this.send("HEAD", location, {});
    if (answer.status === 200 || answer.status === 204) {
      const offset = Number(answer.headers.get("Upload-Offset"));
      if (!Number.isInteger(offset)) throw new LockstepError("protocol", "HEAD of an upload without Upload-Offset");
      return offset;
    }
    if (answer.status === 404 || answer.status === 410) return null;
    throw httpError(answer.status, answer.text, "reading an upload's offset");
  }

  /**
   * Sends `bytes` as the upload's content from `offset`.
   * @param {string} location
   * @param {number} offset
   * @param {Blob} bytes
   * @returns {Promise<PatchOutcome>}
   */
  async patch(location, offset, bytes) {
    const answer = await this.send("PATCH", location, {
      "Content-Type": "application/offset+octet-stream", "Upload-Offset": String(offset),
    }, bytes, 300_000);
    if (answer.status === 200 || answer.status === 204) {
      const now = Number(answer.headers.get("Upload-Offset"));
      if (!Number.isInteger(now)) throw new LockstepError("protocol", "PATCH answered without Upload-Offset");
      return { kind: "offset", offset: now };
    }
    if (answer.status === 409 || answer.status === 404 || answer.status === 410) return { kind: "conflict" };
    if (answer.status === 460) return { kind: "hashMismatch", message: answer.text };
    if ([400, 403, 413, 415].includes(answer.status)) throw refused(answer.status, answer.text);
    throw httpError(answer.status, answer.text, "uploading");
  }

  /**
   * Blob `sha256`'s bytes, reporting the bytes received so far as they come.
   * @param {string} sha256
   * @param {(received: number) => void} progress
   * @returns {Promise<Blob>}
   */
  async download(sha256, progress) {
    let response;
    try {
      response = await this.api.fetch(`${this.root}/${sha256}`, { headers: { "X-Simperium-Token": this.api.token } });
    } catch (error) {
      throw new LockstepError("network", `downloading ${sha256.slice(0, 12)}…: ${/** @type {Error} */ (error).message}`);
    }
    if (response.status === 403 || response.status === 404) {
      throw new AttachmentError("not-found", `attachment ${sha256.slice(0, 12)}… is not on the server, or this user may not read it`, response.status);
    }
    if (!response.ok) throw httpError(response.status, await response.text(), "downloading");
    if (!response.body) return new Blob([await response.arrayBuffer()]);
    /** @type {Uint8Array[]} */
    const chunks = [];
    let received = 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.length;
      progress(received);
    }
    return new Blob(chunks);
  }
}

/**
 * @param {number} status
 * @param {string} body
 */
function refused(status, body) {
  const error = httpError(status, body);
  return new AttachmentError("refused", `the server refused the attachment (HTTP ${status}): ${error.message}`, status);
}

/**
 * The SHA-256 of `bytes`, as 64 lowercase hexadecimal digits.
 * @param {Blob} bytes
 */
export async function sha256Of(bytes) {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", await bytes.arrayBuffer());
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
