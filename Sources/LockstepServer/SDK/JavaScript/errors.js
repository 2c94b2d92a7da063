// What lockstep.js throws: one class, LockstepError, whose `code` says what went wrong and, for
// a refusal by the server, whose `status` and `message` are the server's. SpaceError and
// AttachmentError are LockstepErrors of those parts.

export class LockstepError extends Error {
  /**
   * @param {string} code What went wrong, in a word or two: "removed", "not-found",
   *   "already-sent", "unauthorized", "http", "protocol", "timed-out", "store-failed", "closed".
   * @param {string} message A sentence saying what went wrong; the server's message for a refusal.
   * @param {number} [status] The server's HTTP status (or Simperium error code) when it refused.
   */
  constructor(code, message, status) {
    super(message);
    this.name = "LockstepError";
    this.code = code;
    this.status = status;
  }
}

/** A request on a space the server refused: "not-found", "forbidden", "last-owner", "name-taken", "not-member" or "invalid". */
export class SpaceError extends LockstepError {
  /**
   * @param {string} code
   * @param {string} message
   * @param {string} space
   * @param {number} [status]
   */
  constructor(code, message, space, status) {
    super(code, message, status);
    this.name = "SpaceError";
    this.space = space;
  }
}

/** An attachment that could not be stored, uploaded or read: "hash-mismatch", "corrupt-local-file",
 * "missing-local-file", "refused", "not-found", "not-an-attachment". */
export class AttachmentError extends LockstepError {
  /**
   * @param {string} code
   * @param {string} message
   * @param {number} [status]
   */
  constructor(code, message, status) {
    super(code, message, status);
    this.name = "AttachmentError";
  }
}

/**
 * The error for an HTTP answer that is not a success: the server's status, and its message
 * (`{"error":{"message":…}}`) or its body.
 * @param {number} status
 * @param {string} body
 * @param {string} [what] What was asked, for the message when the body says nothing.
 */
export function httpError(status, body, what = "the request") {
  let message = body;
  try {
    const parsed = JSON.parse(body);
    if (parsed && typeof parsed.error?.message === "string") message = parsed.error.message;
  } catch {
    // Not JSON: the body as it is.
  }
  if (!message) message = `${what} failed with HTTP ${status}`;
  return new LockstepError(status === 401 ? "unauthorized" : "http", message, status);
}
