// Attachment bytes on demand (the Swift SDK's AttachmentCache): the device's copy when it has
// one, else downloaded, checked against its SHA-256, and kept in a cache of bounded size (the
// least recently used go first; never one waiting to upload, nor the one just asked for). Two
// callers asking for one attachment at once share one download.
import { AttachmentError } from "../errors.js";
import { evict, recordStored } from "./records.js";
import { isHash } from "./reference.js";
import { sha256Of } from "./blob-api.js";

/** @typedef {import("../replica/replica.js").Replica} Replica */
/** @typedef {import("./blob-api.js").BlobAPI} BlobAPI */
/** @typedef {import("./reference.js").Attachment} Attachment */
/** @typedef {import("./uploader.js").TransferProgress} TransferProgress */

export class AttachmentCache {
  /**
   * @param {Replica} replica
   * @param {BlobAPI} api
   * @param {number} limit The most bytes of attachments kept, uploads waiting aside.
   * @param {(progress: TransferProgress) => void} publish
   */
  constructor(replica, api, limit, publish) {
    this.replica = replica;
    this.api = api;
    this.limit = limit;
    this.publish = publish;
    /** @type {Map<string, Promise<Blob>>} */
    this.downloads = new Map();
  }

  /**
   * The bytes of `attachment`, downloaded first if the device has none.
   * @param {Attachment} attachment
   * @returns {Promise<Blob>}
   */
  async data(attachment) {
    if (!isHash(attachment.sha256)) throw new AttachmentError("not-an-attachment", `not an attachment reference: ${String(attachment.sha256).slice(0, 80)}`);
    const sha256 = attachment.sha256;
    const known = this.replica.tables.table("blobs").get(sha256);
    if (known?.stored) {
      const bytes = await this.replica.store.getBlob(sha256);
      if (bytes) {
        await this.replica.write((tx) => tx.set("blobs", sha256, { ...known, lastUsed: Date.now() }));
        return bytes;
      }
    }
    let download = this.downloads.get(sha256);
    if (!download) {
      download = this.download(attachment).finally(() => this.downloads.delete(sha256));
      this.downloads.set(sha256, download);
    }
    return download;
  }

  /** @param {Attachment} attachment */
  async download(attachment) {
    /**
     * @param {number} bytes
     * @param {TransferProgress["state"]} state
     * @param {AttachmentError | null} [error]
     */
    const report = (bytes, state, error = null) =>
      this.publish({ attachment, direction: "download", completedBytes: bytes, totalBytes: attachment.size, state, error });
    report(0, "transferring");
    let reported = 0;
    let bytes;
    try {
      bytes = await this.api.download(attachment.sha256, (received) => {
        // A step per MiB (or the end) is plenty for a progress bar.
        if (received - reported >= 1 << 20 || received === attachment.size) {
          reported = received;
          report(received, "transferring");
        }
      });
      const actual = await sha256Of(bytes);
      if (actual !== attachment.sha256) {
        throw new AttachmentError("hash-mismatch", `expected SHA-256 ${attachment.sha256} but the bytes hash to ${actual}`);
      }
    } catch (error) {
      if (error instanceof AttachmentError) report(0, "failed", error);
      throw error;
    }
    await this.replica.store.putBlob(attachment.sha256, bytes);
    // The bytes are what the hash names; the size is theirs, whatever the reference said.
    const stored = { ...attachment, size: bytes.size };
    const evicted = await this.replica.write((tx) => {
      recordStored(tx, stored);
      return evict(tx, this.limit, attachment.sha256);
    });
    for (const sha256 of evicted) await this.replica.store.deleteBlob(sha256);
    report(bytes.size, "completed");
    return bytes;
  }

  /** Evicts what no longer fits (after an attach, which adds to the cache too). */
  async trim() {
    const evicted = await this.replica.write((tx) => evict(tx, this.limit, null));
    for (const sha256 of evicted) await this.replica.store.deleteBlob(sha256);
  }
}
