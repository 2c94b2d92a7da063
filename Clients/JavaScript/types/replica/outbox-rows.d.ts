/**
 * A random client change id (or key): 32 lowercase hexadecimal digits.
 * @returns {string}
 */
export function newChangeID(): string;
/**
 * Every row, oldest first, for which `wanted` holds.
 * @param {Transaction} tx
 * @param {(row: OutboxRow) => boolean} wanted
 * @returns {OutboxRow[]}
 */
export function rowsWhere(tx: Transaction, wanted: (row: OutboxRow) => boolean): OutboxRow[];
/**
 * The row (not rejected) of one of these change ids.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string[]} changeIDs
 * @returns {OutboxRow | undefined}
 */
export function withChangeID(tx: Transaction, bucket: string, changeIDs: string[]): OutboxRow | undefined;
/**
 * Deletes the object's rows that are not rejected.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 */
export function deleteAll(tx: Transaction, bucket: string, key: string): void;
/**
 * Changes fields of a row.
 * @param {Transaction} tx
 * @param {number} id
 * @param {Partial<OutboxRow>} fields
 */
export function updateRow(tx: Transaction, id: number, fields: Partial<OutboxRow>): void;
/**
 * A new queued row.
 * @param {Transaction} tx
 * @param {Partial<OutboxRow> & { bucket: string, key: string, operation: "M" | "-", priority: number }} fields
 * @returns {OutboxRow}
 */
export function insertRow(tx: Transaction, fields: Partial<OutboxRow> & {
    bucket: string;
    key: string;
    operation: "M" | "-";
    priority: number;
}): OutboxRow;
/**
 * Adds an edit to the object's queued change, or queues a new one: unsent edits to one object
 * coalesce, keeping the highest priority and the latest edit time, while every member of the
 * change keeps the time it was written at (an edit of other members later queues a change of
 * its own); edits of an object the server has not seen always coalesce, and a removal takes
 * every queued edit with it. The edited members are stamped with the change.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {"M" | "-"} operation
 * @param {number} priority
 * @param {bigint | null} time
 * @param {MemberEdits} edits
 * @param {string} clientID
 */
export function enqueue(tx: Transaction, bucket: string, key: string, operation: "M" | "-", priority: number, time: bigint | null, edits: MemberEdits, clientID: string): void;
/**
 * The change as the server reads it (`c:{…}` on the socket, an element of `POST /changes`).
 * @param {OutboxRow} row
 * @returns {Record<string, unknown>}
 */
export function wireChange(row: OutboxRow): Record<string, unknown>;
/**
 * What this change sets and unsets; for a row without them, the difference between the ghost
 * and what the change was made to.
 * @param {Transaction} tx
 * @param {OutboxRow} row
 */
export function memberEditsOf(tx: Transaction, row: OutboxRow): MemberEdits;
export function rowKey(id: number): string;
export function rowsOf(tx: Transaction, bucket: string, key: string): OutboxRow[];
export function saveRow(tx: Transaction, row: OutboxRow): void;
export function deleteRow(tx: Transaction, id: number): void;
export type Transaction = import("../store/tables.js").Transaction;
export type JSONObject = import("../json/value.js").JSONObject;
export type ObjectDiff = import("../diff/operations.js").ObjectDiff;
export type Status = "queued" | "sent" | "accepted" | "rejected";
export type OutboxRow = {
    /**
     * Its place in the outbox; later changes have larger ids.
     */
    id: number;
    bucket: string;
    key: string;
    /**
     * The client change id: the same on every resend.
     */
    ccid: string;
    /**
     * Modify, or remove for good.
     */
    operation: "M" | "-";
    /**
     * -1 low, 0 normal, 1 urgent.
     */
    priority: number;
    status: Status;
    sourceVersion: number | null;
    diff: ObjectDiff | null;
    /**
     * The whole object, sent after a 405 or 440.
     */
    fullData: JSONObject | null;
    /**
     * The local object as it was sent (rebased as remote changes arrive).
     */
    expected: JSONObject | null;
    editTime: bigint | null;
    error: number | null;
    message: string | null;
    /**
     * Milliseconds since the epoch, on this device's clock.
     */
    createdAt: number;
    /**
     * What its edits set and unset.
     */
    members: import("./member-edits.js").MemberEditsJSON | null;
    /**
     * Holds members waiting for attachments to upload.
     */
    waiting: boolean;
};
import { MemberEdits } from "./member-edits.js";
