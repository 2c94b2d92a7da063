/** @typedef {{ kind: "heartbeat", count: number } | { kind: "channel", channel: number, command: string, payload: string } | { kind: "other", text: string }} Frame */
/**
 * @param {string} text
 * @returns {Frame}
 */
export function parseFrame(text: string): Frame;
/**
 * The delay before reconnection attempt `attempt` (0 for the first retry): exponential, capped,
 * with full jitter, so that many clients dropped at once do not all come back at once.
 * @param {number} attempt
 * @param {number} initialMs
 * @param {number} maximumMs
 */
export function backoffDelay(attempt: number, initialMs: number, maximumMs: number): number;
export type Frame = {
    kind: "heartbeat";
    count: number;
} | {
    kind: "channel";
    channel: number;
    command: string;
    payload: string;
} | {
    kind: "other";
    text: string;
};
