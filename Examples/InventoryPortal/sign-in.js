// Signing in: the customer's email and password become an access token for this app
// (`POST /1/{app}/authorize/`, with the app's API key, which the portal link carries). The token
// is kept in localStorage, so a reload stays signed in; signing out forgets it.

/** @typedef {{ username: string, token: string }} Session */

/**
 * Asks the server for a token; rejects with the server's own message when it refuses.
 * @param {{ server: string, app: string, apiKey: string }} link
 * @param {string} username
 * @param {string} password
 * @returns {Promise<Session>}
 */
export async function signIn(link, username, password) {
  const answer = await fetch(`${link.server}/1/${encodeURIComponent(link.app)}/authorize/`, {
    method: "POST",
    headers: { "X-Simperium-API-Key": link.apiKey, "Content-Type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(serverMessage(text) ?? `the server answered ${answer.status}`);
  const grant = JSON.parse(text);
  const session = { username: grant.username ?? username, token: grant.access_token };
  localStorage.setItem(storageKey(link), JSON.stringify(session));
  return session;
}

/**
 * The session a previous page kept, if any.
 * @param {{ server: string, app: string }} link
 * @returns {Session | null}
 */
export function keptSession(link) {
  try {
    const kept = JSON.parse(localStorage.getItem(storageKey(link)) ?? "null");
    return kept && typeof kept.token === "string" && typeof kept.username === "string" ? kept : null;
  } catch {
    return null;
  }
}

/** @param {{ server: string, app: string }} link */
export function forgetSession(link) {
  localStorage.removeItem(storageKey(link));
}

/** @param {{ server: string, app: string }} link */
const storageKey = (link) => `inventory-portal:${link.server}:${link.app}`;

/**
 * The message of the server's `{"error":{"message"}}` body, if it is one.
 * @param {string} text
 */
function serverMessage(text) {
  try {
    const message = JSON.parse(text)?.error?.message;
    return typeof message === "string" ? message : null;
  } catch {
    return null;
  }
}
