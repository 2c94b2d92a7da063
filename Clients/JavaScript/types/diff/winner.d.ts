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
export function conflictWinner(incoming: EditStamp, applied: EditStamp): import("./transform.js").ConflictWinner;
/**
 * Who made an edit and when, in corrected (server) time.
 */
export type EditStamp = {
    /**
     * Nanoseconds since the Unix epoch on the server's clock, or null
     * for clients that send no time (ordered by arrival).
     */
    time: bigint | null;
    /**
     * Breaks ties between equal times.
     */
    clientID: string;
};
