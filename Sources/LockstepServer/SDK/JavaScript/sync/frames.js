// One text frame of the streaming protocol: `h:<n>` for the connection, or
// `<channel>:<command>[:<payload>]` for a bucket's channel (the payload may hold colons).

/** @typedef {{ kind: "heartbeat", count: number } | { kind: "channel", channel: number, command: string, payload: string } | { kind: "other", text: string }} Frame */

/**
 * @param {string} text
 * @returns {Frame}
 */
export function parseFrame(text) {
  const colon = text.indexOf(":");
  if (colon < 0) return { kind: "other", text };
  const prefix = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (prefix === "h") return { kind: "heartbeat", count: Number(rest) || 0 };
  if (!/^[0-9]+$/.test(prefix)) return { kind: "other", text };
  const second = rest.indexOf(":");
  if (second < 0) return { kind: "channel", channel: Number(prefix), command: rest, payload: "" };
  return { kind: "channel", channel: Number(prefix), command: rest.slice(0, second), payload: rest.slice(second + 1) };
}

/**
 * The delay before reconnection attempt `attempt` (0 for the first retry): exponential, capped,
 * with full jitter, so that many clients dropped at once do not all come back at once.
 * @param {number} attempt
 * @param {number} initialMs
 * @param {number} maximumMs
 */
export function backoffDelay(attempt, initialMs, maximumMs) {
  const bound = Math.min(maximumMs, initialMs * 2 ** Math.min(attempt, 30));
  return Math.random() * bound;
}
