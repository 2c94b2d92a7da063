/**
 * The error for an HTTP answer that is not a success: the server's status, and its message
 * (`{"error":{"message":…}}`) or its body.
 * @param {number} status
 * @param {string} body
 * @param {string} [what] What was asked, for the message when the body says nothing.
 */
export function httpError(status: number, body: string, what?: string | undefined): LockstepError;
export class LockstepError extends Error {
    /**
     * @param {string} code What went wrong, in a word or two: "removed", "not-found",
     *   "already-sent", "unauthorized", "http", "protocol", "timed-out", "store-failed", "closed".
     * @param {string} message A sentence saying what went wrong; the server's message for a refusal.
     * @param {number} [status] The server's HTTP status (or Simperium error code) when it refused.
     */
    constructor(code: string, message: string, status?: number | undefined);
    code: string;
    status: number | undefined;
}
/** A request on a space the server refused: "not-found", "forbidden", "last-owner", "name-taken", "not-member" or "invalid". */
export class SpaceError extends LockstepError {
    /**
     * @param {string} code
     * @param {string} message
     * @param {string} space
     * @param {number} [status]
     */
    constructor(code: string, message: string, space: string, status?: number | undefined);
    space: string;
}
/** An attachment that could not be stored, uploaded or read: "hash-mismatch", "corrupt-local-file",
 * "missing-local-file", "refused", "not-found", "not-an-attachment". */
export class AttachmentError extends LockstepError {
}
