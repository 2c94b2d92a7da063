/** @typedef {import("../store/tables.js").Transaction} Transaction */
/** @typedef {import("./reference.js").Attachment} Attachment */
/**
 * An attachment this device knows.
 * @typedef {object} BlobRow
 * @property {string} sha256
 * @property {number} size
 * @property {string} type
 * @property {boolean} stored Its bytes are in the local store.
 * @property {number} lastUsed Orders the cache's evictions.
 * @property {boolean} uploaded This user's upload of it completed.
 */
/**
 * One upload of the queue.
 * @typedef {object} UploadRow
 * @property {string} sha256
 * @property {number} priority
 * @property {number} seq Its place in the queue.
 * @property {string | null} location The server's URL for it, once created.
 * @property {number} acknowledged The bytes the server confirmed.
 * @property {number} restarts How often the server discarded it (a hash mismatch).
 * @property {{ code: string, message: string } | null} error Why it stopped for good.
 */
/**
 * Notes that the bytes of `attachment` are in the local store, just used.
 * @param {Transaction} tx
 * @param {Attachment} attachment
 */
export function recordStored(tx: Transaction, attachment: Attachment): void;
/**
 * Puts `sha256` in the upload queue at `priority` (raising the priority of one queued, retrying
 * one that failed), unless this user uploaded it before. Returns whether it is queued now.
 * @param {Transaction} tx
 * @param {string} sha256
 * @param {number} priority
 */
export function queueUpload(tx: Transaction, sha256: string, priority: number): boolean;
/** @param {Transaction} tx */
export function anyPendingUpload(tx: Transaction): boolean;
/**
 * The queue, highest priority first, then oldest.
 * @param {Transaction} tx
 * @returns {UploadRow[]}
 */
export function uploads(tx: Transaction): UploadRow[];
/**
 * Whether a data change at `priority` or above waits in the outbox: an upload at `priority`
 * does not start, or go on, while one does.
 * @param {Transaction} tx
 * @param {number} priority
 */
export function dataChangesWaiting(tx: Transaction, priority: number): boolean;
/**
 * @param {Transaction} tx
 * @param {string} sha256
 * @param {Partial<UploadRow>} fields
 */
export function updateUpload(tx: Transaction, sha256: string, fields: Partial<UploadRow>): void;
/**
 * The server holds the whole blob for this user: it leaves the queue, and the changes held back
 * for it may go.
 * @param {Transaction} tx
 * @param {string} sha256
 */
export function completeUpload(tx: Transaction, sha256: string): void;
/**
 * Marks the least recently used attachments gone until the rest fit in `limit` bytes, and
 * returns them, for their bytes to be deleted once this commits. Never one waiting to upload
 * (the only copy), nor `keeping` (just asked for).
 * @param {Transaction} tx
 * @param {number} limit
 * @param {string | null} keeping
 * @returns {string[]}
 */
export function evict(tx: Transaction, limit: number, keeping: string | null): string[];
export function blob(tx: Transaction, sha256: string): BlobRow | undefined;
export function isPendingUpload(tx: Transaction, sha256: string): boolean;
export function nextUpload(tx: Transaction): UploadRow | undefined;
export type Transaction = import("../store/tables.js").Transaction;
export type Attachment = import("./reference.js").Attachment;
/**
 * An attachment this device knows.
 */
export type BlobRow = {
    sha256: string;
    size: number;
    type: string;
    /**
     * Its bytes are in the local store.
     */
    stored: boolean;
    /**
     * Orders the cache's evictions.
     */
    lastUsed: number;
    /**
     * This user's upload of it completed.
     */
    uploaded: boolean;
};
/**
 * One upload of the queue.
 */
export type UploadRow = {
    sha256: string;
    priority: number;
    /**
     * Its place in the queue.
     */
    seq: number;
    /**
     * The server's URL for it, once created.
     */
    location: string | null;
    /**
     * The bytes the server confirmed.
     */
    acknowledged: number;
    /**
     * How often the server discarded it (a hash mismatch).
     */
    restarts: number;
    /**
     * Why it stopped for good.
     */
    error: {
        code: string;
        message: string;
    } | null;
};
