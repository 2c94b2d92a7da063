// One NTP-style exchange with the server (LockstepCore's ClockSample): the client stamps t1
// when it sends and t4 when the answer arrives, on its monotonic clock; the server stamps t2 on
// receipt and t3 as it answers, in nanoseconds since the epoch. The offset (server minus
// client) lies in [t3 − t4, t2 − t1]: the midpoint is the estimate, half the width the bound.

/**
 * @typedef {object} ClockSample
 * @property {bigint} t1 Client send, on the client's monotonic clock.
 * @property {bigint} t2 Server receive.
 * @property {bigint} t3 Server send.
 * @property {bigint} t4 Client receive.
 * @property {bigint} serverResolution How coarse the server's stamps are (0 for nanoseconds).
 * @property {boolean} opensConnection Whether the exchange may have opened its connection first
 *   (its up leg then carries a handshake: it bounds the offset, but its midpoint is not averaged).
 */

/** @param {ClockSample} sample */
export const roundTrip = (sample) => (sample.t4 - sample.t1) - (sample.t3 - sample.t2);

/**
 * The offsets the exchange allows: [lower, upper].
 * @param {ClockSample} sample
 * @returns {[bigint, bigint]}
 */
export const offsetBounds = (sample) => [sample.t3 - sample.t4, sample.t2 + sample.serverResolution - sample.t1];

/** @param {ClockSample} sample */
export const localMidpoint = (sample) => sample.t1 + (sample.t4 - sample.t1) / 2n;


/**
 * Usable: time ran forwards on both sides, and the server did not claim to spend longer on the
 * request than the client waited.
 * @param {ClockSample} sample
 */
export const isPlausible = (sample) =>
  sample.t4 >= sample.t1 && sample.t3 >= sample.t2 && roundTrip(sample) >= 0n && sample.serverResolution >= 0n;

/**
 * @param {ClockSample} a
 * @param {ClockSample} b
 */
export const sameSample = (a, b) => a.t1 === b.t1 && a.t2 === b.t2 && a.t3 === b.t3 && a.t4 === b.t4
  && a.serverResolution === b.serverResolution && a.opensConnection === b.opensConnection;
