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
    constructor(replica: Replica, api: BlobAPI, limit: number, publish: (progress: TransferProgress) => void);
    replica: import("../replica/replica.js").Replica;
    api: import("./blob-api.js").BlobAPI;
    limit: number;
    publish: (progress: TransferProgress) => void;
    /** @type {Map<string, Promise<Blob>>} */
    downloads: Map<string, Promise<Blob>>;
    /**
     * The bytes of `attachment`, downloaded first if the device has none.
     * @param {Attachment} attachment
     * @returns {Promise<Blob>}
     */
    data(attachment: Attachment): Promise<Blob>;
    /** @param {Attachment} attachment */
    download(attachment: Attachment): Promise<Blob>;
    /** Evicts what no longer fits (after an attach, which adds to the cache too). */
    trim(): Promise<void>;
}
export type Replica = import("../replica/replica.js").Replica;
export type BlobAPI = import("./blob-api.js").BlobAPI;
export type Attachment = import("./reference.js").Attachment;
export type TransferProgress = import("./uploader.js").TransferProgress;
