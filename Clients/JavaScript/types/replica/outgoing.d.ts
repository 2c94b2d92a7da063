/** @typedef {import("../store/tables.js").Transaction} Transaction */
/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("./outbox-rows.js").OutboxRow} OutboxRow */
/** @typedef {import("./replica.js").Replica} Replica */
/**
 * The changes to send now, as the server reads them: with `resend`, first every change sent
 * before and never answered (after a reconnect), unchanged; then the first queued change of
 * each object that has none in flight, highest priority first.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {boolean} resend
 * @param {number} [limit]
 * @returns {Promise<Record<string, unknown>[]>}
 */
export function takeOutgoing(replica: Replica, bucket: string, resend: boolean, limit?: number | undefined): Promise<Record<string, unknown>[]>;
/**
 * The sent changes with these ccids, as they are to be resent now.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {Iterable<string>} changeIDs
 */
export function outgoingByChangeIDs(replica: Replica, bucket: string, changeIDs: Iterable<string>): Record<string, unknown>[];
/**
 * The HTTP answer to `POST /changes` said these changes (each by its ccids) were applied; their
 * acknowledgements will come through the change feed.
 * @param {Replica} replica
 * @param {string} bucket
 * @param {string[][]} changes
 */
export function markAccepted(replica: Replica, bucket: string, changes: string[][]): Promise<void>;
export type Transaction = import("../store/tables.js").Transaction;
export type JSONObject = import("../json/value.js").JSONObject;
export type OutboxRow = import("./outbox-rows.js").OutboxRow;
export type Replica = import("./replica.js").Replica;
