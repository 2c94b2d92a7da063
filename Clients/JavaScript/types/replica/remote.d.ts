/**
 * Takes in changes from the server, each bucket's in feed order, in one transaction.
 * @param {Replica} replica
 * @param {ChangeBatch[]} batches
 * @returns {Promise<ReceiveOutcome[]>}
 */
export function receive(replica: Replica, batches: ChangeBatch[]): Promise<ReceiveOutcome[]>;
export type Transaction = import("../store/tables.js").Transaction;
export type RemoteChange = import("../sync/remote-change.js").RemoteChange;
export type OutboxRow = import("./outbox-rows.js").OutboxRow;
export type Replica = import("./replica.js").Replica;
export type Change = import("../events.js").Change;
/**
 * What the sync must do after a batch was taken in.
 */
export type ReceiveOutcome = {
    /**
     * Objects whose ghost fell out of step: fetch them whole.
     */
    resync: Set<string>;
    /**
     * Changes became sendable again.
     */
    sendMore: boolean;
    /**
     * Changes (by ccid) to send again at once as the whole object.
     */
    resendFull: Set<string>;
    /**
     * The server failed for a moment (5xx, 429): send the same again later.
     */
    retryLater: boolean;
    /**
     * The batch acknowledged at least one of our changes.
     */
    acknowledged: boolean;
};
export type ChangeBatch = {
    bucket: string;
    changes: RemoteChange[];
};
export type Emit = (change: Change | null) => void;
