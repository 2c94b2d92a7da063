export function roundTrip(sample: ClockSample): bigint;
export function offsetBounds(sample: ClockSample): [bigint, bigint];
export function localMidpoint(sample: ClockSample): bigint;
export function isPlausible(sample: ClockSample): boolean;
export function sameSample(a: ClockSample, b: ClockSample): boolean;
export type ClockSample = {
    /**
     * Client send, on the client's monotonic clock.
     */
    t1: bigint;
    /**
     * Server receive.
     */
    t2: bigint;
    /**
     * Server send.
     */
    t3: bigint;
    /**
     * Client receive.
     */
    t4: bigint;
    /**
     * How coarse the server's stamps are (0 for nanoseconds).
     */
    serverResolution: bigint;
    /**
     * Whether the exchange may have opened its connection first
     * (its up leg then carries a handshake: it bounds the offset, but its midpoint is not averaged).
     */
    opensConnection: boolean;
};
