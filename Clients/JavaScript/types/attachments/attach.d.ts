/** @typedef {import("../replica/replica.js").Replica} Replica */
/** @typedef {import("./reference.js").Attachment} Attachment */
/**
 * Stores `bytes`, sets `member` of `key` to refer to them (creating the object if there is
 * none) and queues their upload at `priority`; all durable when it resolves.
 * @param {Replica} replica
 * @param {Blob} bytes
 * @param {string} type
 * @param {string} bucket
 * @param {string} key
 * @param {string} member
 * @param {number} priority
 * @returns {Promise<Attachment>}
 */
export function attach(replica: Replica, bytes: Blob, type: string, bucket: string, key: string, member: string, priority: number): Promise<Attachment>;
export type Replica = import("../replica/replica.js").Replica;
export type Attachment = import("./reference.js").Attachment;
