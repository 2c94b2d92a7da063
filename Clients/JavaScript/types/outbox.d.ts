export class Outbox {
    /** @param {Replica} replica */
    constructor(replica: Replica);
    replica: import("./replica/replica.js").Replica;
    /** Changes not yet acknowledged (queued or sent), oldest first. */
    get pending(): OutboxChange[];
    /** Changes the server refused, oldest first; their objects were rolled back already. */
    get rejected(): OutboxChange[];
    /**
     * Cancels a change not sent yet: the object goes back to what the server last acknowledged
     * plus the change in flight, if any. Rejects with "already-sent" when it is on its way.
     * @param {OutboxChange} change
     */
    cancel(change: OutboxChange): Promise<any>;
    /** Forgets the refused changes once the app has shown them; changes no object. */
    dismissRejected(): Promise<void>;
}
export type Replica = import("./replica/replica.js").Replica;
export type OutboxRow = import("./replica/outbox-rows.js").OutboxRow;
/**
 * One local change in the outbox.
 */
export type OutboxChange = {
    /**
     * Its place in the outbox; later changes have larger ids.
     */
    id: number;
    bucket: string;
    key: string;
    /**
     * The client change id (ccid), the same on every resend.
     */
    changeID: string;
    operation: "modify" | "remove";
    priority: "low" | "normal" | "urgent";
    /**
     * Queued (can still be cancelled), sent, or refused.
     */
    status: "queued" | "sent" | "rejected";
    /**
     * The server's code for a refusal (410 removed, 413 too large…).
     */
    code: number | null;
    /**
     * The server's reason for a refusal.
     */
    message: string | null;
    /**
     * When the edit was made, in nanoseconds on the server's clock.
     */
    editTime: bigint | null;
    /**
     * When it entered the outbox, on this device's clock.
     */
    createdAt: Date;
};
