// The HTTP API as the console uses it: the admin token in X-Simperium-Token, and for a user's
// bucket that user named in X-Simperium-User. Errors carry the server's own message.
import * as session from "./session.js";

export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A request under /1/<app>/; `user` acts for that user (their buckets). Resolves to the parsed JSON (or null). */
export async function request(method, path, { body, user, headers = {}, raw = false } = {}) {
  const signedIn = session.current();
  if (!signedIn) throw new APIError(401, "not signed in");
  const response = await fetch(`/1/${encodeURIComponent(signedIn.app)}/${path}`, {
    method,
    headers: {
      "X-Simperium-Token": signedIn.token,
      ...(user ? { "X-Simperium-User": user } : {}),
      ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
    credentials: "omit",
  });
  if (!response.ok) throw new APIError(response.status, await errorMessage(response));
  if (raw) return response;
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

export const get = (path, options) => request("GET", path, options);
export const post = (path, body, options) => request("POST", path, { ...options, body });

/** A public route outside /1/ (`/releases/…`, `/time`). */
export async function publicJSON(path) {
  const response = await fetch(path, { cache: "no-store", credentials: "omit" });
  if (!response.ok) throw new APIError(response.status, await errorMessage(response));
  return response.json();
}

async function errorMessage(response) {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text);
    return parsed?.error?.message ?? parsed?.message ?? text;
  } catch {
    return text || `${response.status} ${response.statusText}`;
  }
}

/** A client change id: unique per edit, so a retried edit is applied once. */
export function newChangeID() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return "console-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
