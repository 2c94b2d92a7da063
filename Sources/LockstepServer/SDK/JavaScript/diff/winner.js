// Which of two concurrent edits wins where they collide: LockstepCore's `MergeRules.winner`.
import { precedesUTF8 } from "../json/order.js";

/**
 * Who made an edit and when, in corrected (server) time.
 * @typedef {object} EditStamp
 * @property {bigint | null} time Nanoseconds since the Unix epoch on the server's clock, or null
 *   for clients that send no time (ordered by arrival).
 * @property {string} clientID Breaks ties between equal times.
 */

/**
 * The later corrected time wins, ties going to the greater client id; when either edit has no
 * time, the incoming (later arriving) one wins.
 * @param {EditStamp} incoming @param {EditStamp} applied
 * @returns {import("./transform.js").ConflictWinner}
 */
export function conflictWinner(incoming, applied) {
  if (incoming.time === null || applied.time === null) return "incoming";
  if (incoming.time !== applied.time) return incoming.time > applied.time ? "incoming" : "applied";
  return precedesUTF8(applied.clientID, incoming.clientID) ? "incoming" : "applied";
}
