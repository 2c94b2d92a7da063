// Runs the upload queue while the sync runs (the Swift SDK's AttachmentUploader): one upload at
// a time, highest priority first, in chunks from the last byte the server confirmed. Data
// changes go first: an upload waits while the outbox holds a data change at its priority or
// above, and one under way stops between chunks when one arrives. The queue is in the store:
// after a reload an upload asks the server where it stands (HEAD) and sends the rest.
import { AttachmentError } from "../errors.js";
import { completeUpload, dataChangesWaiting, nextUpload, updateUpload } from "./records.js";
import { sha256Of } from "./blob-api.js";
import { backoffDelay } from "../sync/frames.js";
import { sleep } from "../util/wakeup.js";

/** @typedef {import("../replica/replica.js").Replica} Replica */
/** @typedef {import("./blob-api.js").BlobAPI} BlobAPI */
/** @typedef {import("./records.js").UploadRow} UploadRow */
/** @typedef {import("./reference.js").Attachment} Attachment */
/**
 * How far one attachment's upload or download has come.
 * @typedef {object} TransferProgress
 * @property {Attachment} attachment
 * @property {"upload" | "download"} direction
 * @property {number} completedBytes For an upload, those the server confirmed.
 * @property {number} totalBytes
 * @property {"queued" | "transferring" | "completed" | "failed"} state
 * @property {AttachmentError | null} error Why it failed, when it did.
 */

/** An upload under way stops for a data change or a more urgent upload. */
class Pause extends Error {}

export class Uploader {
  /**
   * @param {Replica} replica
   * @param {BlobAPI} api
   * @param {number} chunkSize Bytes a request: a reload or a dropped connection costs at most this much again.
   * @param {(progress: TransferProgress) => void} publish
   * @param {{ initialMs: number, maximumMs: number }} backoff
   */
  constructor(replica, api, chunkSize, publish, backoff) {
    this.replica = replica;
    this.api = api;
    this.chunkSize = Math.max(1, chunkSize);
    this.publish = publish;
    this.backoff = backoff;
  }

  /**
   * The attachment of an upload row.
   * @param {UploadRow} upload
   * @returns {Attachment}
   */
  attachment(upload) {
    const blob = this.replica.tables.table("blobs").get(upload.sha256);
    return { sha256: upload.sha256, size: blob?.size ?? 0, type: blob?.type ?? "application/octet-stream" };
  }

  /**
   * @param {UploadRow} upload
   * @param {number} bytes
   * @param {TransferProgress["state"]} state
   * @param {AttachmentError | null} [error]
   */
  report(upload, bytes, state, error = null) {
    const attachment = this.attachment(upload);
    this.publish({ attachment, direction: "upload", completedBytes: bytes, totalBytes: attachment.size, state, error });
  }

  /**
   * Runs the queue until `signal` aborts.
   * @param {AbortSignal} signal
   */
  async run(signal) {
    let failures = 0;
    /** @type {string | null} The upload last told to wait, so listeners hear it once. */
    let announced = null;
    while (!signal.aborted) {
      const seen = this.replica.outboxChanged.generation;
      try {
        const upload = this.replica.read(nextUpload);
        if (!upload) {
          await this.waitForOutbox(seen, 5000, signal);
          continue;
        }
        if (this.replica.read((tx) => dataChangesWaiting(tx, upload.priority))) {
          if (announced !== upload.sha256) this.report(upload, upload.acknowledged, "queued");
          announced = upload.sha256;
          await this.waitForOutbox(seen, 500, signal);
          continue;
        }
        announced = null;
        await this.send(upload, signal);
        failures = 0;
      } catch (error) {
        if (error instanceof Pause) continue;
        if (signal.aborted) return;
        failures += 1;
        await sleep(backoffDelay(failures, this.backoff.initialMs, this.backoff.maximumMs), signal);
      }
    }
  }

  /**
   * @param {number} seen
   * @param {number} atMostMs
   * @param {AbortSignal} signal
   */
  async waitForOutbox(seen, atMostMs, signal) {
    const done = new AbortController();
    const stop = () => done.abort();
    signal.addEventListener("abort", stop, { once: true });
    await Promise.race([this.replica.outboxChanged.wait(seen, done.signal), sleep(atMostMs, done.signal)]);
    done.abort();
    signal.removeEventListener("abort", stop);
  }

  /**
   * Sends `upload` to its end (or until it yields), from the server's offset.
   * @param {UploadRow} upload
   * @param {AbortSignal} signal
   */
  async send(upload, signal) {
    const attachment = this.attachment(upload);
    try {
      const bytes = await this.replica.store.getBlob(upload.sha256);
      if (!bytes) throw new AttachmentError("missing-local-file", `the device has no copy of attachment ${upload.sha256.slice(0, 12)}…`);
      let { location, offset } = await this.resume(upload, attachment);
      let restarts = upload.restarts;
      let conflicts = 0;
      while (offset < attachment.size) {
        if (signal.aborted) return;
        if (this.mustYield(upload)) {
          this.report(upload, offset, "queued");
          throw new Pause();
        }
        this.report(upload, offset, "transferring");
        const outcome = await this.api.patch(location, offset, bytes.slice(offset, Math.min(attachment.size, offset + this.chunkSize)));
        if (outcome.kind === "offset") {
          offset = outcome.offset;
          conflicts = 0;
        } else if (outcome.kind === "conflict") {
          // The server stands elsewhere (or still writes a chunk of a run cut short): wait a
          // little, more each time, and ask where it stands.
          conflicts += 1;
          await sleep(Math.min(2000, 25 * 2 ** Math.min(conflicts, 7)), signal);
          const now = await this.api.offset(location);
          if (now !== null) offset = now;
          else ({ location, offset } = await this.api.create(attachment));
        } else {
          // The server discarded what it had: the device's copy changed (never uploadable), or
          // bytes were damaged on the way (start again from byte 0, a few times).
          if ((await sha256Of(bytes)) !== upload.sha256) {
            throw new AttachmentError("corrupt-local-file", `the local copy of attachment ${upload.sha256.slice(0, 12)}… was altered`);
          }
          restarts += 1;
          if (restarts > 3) throw new AttachmentError("refused", outcome.message, 460);
          await this.replica.write((tx) => updateUpload(tx, upload.sha256, { acknowledged: 0, restarts }));
          ({ location, offset } = await this.api.create(attachment));
        }
        const saved = { location, acknowledged: offset };
        await this.replica.write((tx) => updateUpload(tx, upload.sha256, saved));
      }
      await this.replica.write((tx) => completeUpload(tx, upload.sha256));
      this.report(upload, attachment.size, "completed");
      // The changes held back for this blob may go now.
      this.replica.outboxChanged.signal();
    } catch (error) {
      if (!(error instanceof AttachmentError)) throw error;
      const reason = { code: error.code, message: error.message };
      await this.replica.write((tx) => updateUpload(tx, upload.sha256, { error: reason }));
      this.report(upload, upload.acknowledged, "failed", error);
    }
  }

  /**
   * Where the upload stands on the server: HEAD of its known location, else create it.
   * @param {UploadRow} upload
   * @param {Attachment} attachment
   */
  async resume(upload, attachment) {
    if (upload.location) {
      const offset = await this.api.offset(upload.location);
      if (offset !== null) return { location: upload.location, offset };
    }
    return this.api.create(attachment);
  }

  /**
   * Whether `upload`, under way, must stop between chunks.
   * @param {UploadRow} upload
   */
  mustYield(upload) {
    return this.replica.read((tx) => dataChangesWaiting(tx, upload.priority) || nextUpload(tx)?.sha256 !== upload.sha256);
  }
}
