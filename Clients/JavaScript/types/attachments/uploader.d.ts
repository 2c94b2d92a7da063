export class Uploader {
    /**
     * @param {Replica} replica
     * @param {BlobAPI} api
     * @param {number} chunkSize Bytes a request: a reload or a dropped connection costs at most this much again.
     * @param {(progress: TransferProgress) => void} publish
     * @param {{ initialMs: number, maximumMs: number }} backoff
     */
    constructor(replica: Replica, api: BlobAPI, chunkSize: number, publish: (progress: TransferProgress) => void, backoff: {
        initialMs: number;
        maximumMs: number;
    });
    replica: import("../replica/replica.js").Replica;
    api: import("./blob-api.js").BlobAPI;
    chunkSize: number;
    publish: (progress: TransferProgress) => void;
    backoff: {
        initialMs: number;
        maximumMs: number;
    };
    /**
     * The attachment of an upload row.
     * @param {UploadRow} upload
     * @returns {Attachment}
     */
    attachment(upload: UploadRow): Attachment;
    /**
     * @param {UploadRow} upload
     * @param {number} bytes
     * @param {TransferProgress["state"]} state
     * @param {AttachmentError | null} [error]
     */
    report(upload: UploadRow, bytes: number, state: TransferProgress["state"], error?: AttachmentError | null | undefined): void;
    /**
     * Runs the queue until `signal` aborts.
     * @param {AbortSignal} signal
     */
    run(signal: AbortSignal): Promise<void>;
    /**
     * @param {number} seen
     * @param {number} atMostMs
     * @param {AbortSignal} signal
     */
    waitForOutbox(seen: number, atMostMs: number, signal: AbortSignal): Promise<void>;
    /**
     * Sends `upload` to its end (or until it yields), from the server's offset.
     * @param {UploadRow} upload
     * @param {AbortSignal} signal
     */
    send(upload: UploadRow, signal: AbortSignal): Promise<void>;
    /**
     * Where the upload stands on the server: HEAD of its known location, else create it.
     * @param {UploadRow} upload
     * @param {Attachment} attachment
     */
    resume(upload: UploadRow, attachment: Attachment): Promise<{
        location: string;
        offset: number;
    }>;
    /**
     * Whether `upload`, under way, must stop between chunks.
     * @param {UploadRow} upload
     */
    mustYield(upload: UploadRow): boolean;
}
export type Replica = import("../replica/replica.js").Replica;
export type BlobAPI = import("./blob-api.js").BlobAPI;
export type UploadRow = import("./records.js").UploadRow;
export type Attachment = import("./reference.js").Attachment;
/**
 * How far one attachment's upload or download has come.
 */
export type TransferProgress = {
    attachment: Attachment;
    direction: "upload" | "download";
    /**
     * For an upload, those the server confirmed.
     */
    completedBytes: number;
    totalBytes: number;
    state: "queued" | "transferring" | "completed" | "failed";
    /**
     * Why it failed, when it did.
     */
    error: AttachmentError | null;
};
import { AttachmentError } from "../errors.js";
