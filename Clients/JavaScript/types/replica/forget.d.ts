/** @typedef {import("./replica.js").Replica} Replica */
/** @typedef {{ space: string, bucket: string, reason: string }} SpaceLoss */
/**
 * Forgets `bucket`; resolves the loss to report (null for a bucket of no space).
 * @param {Replica} replica
 * @param {string} bucket
 * @param {string} reason
 * @returns {Promise<SpaceLoss | null>}
 */
export function forgetBucket(replica: Replica, bucket: string, reason: string): Promise<SpaceLoss | null>;
export type Replica = import("./replica.js").Replica;
export type SpaceLoss = {
    space: string;
    bucket: string;
    reason: string;
};
