/** @implements {ClockTransport} */
export class HTTPClockTransport implements ClockTransport {
    /**
     * @param {string} baseURL The server.
     * @param {typeof fetch} [fetcher]
     * @param {number} [timeoutMs]
     */
    constructor(baseURL: string, fetcher?: typeof fetch | undefined, timeoutMs?: number | undefined);
    baseURL: string;
    fetch: typeof fetch;
    timeoutMs: number;
    mayOpenConnection: boolean;
    /** @param {LocalTime} time */
    sample(time: LocalTime): Promise<{
        t1: bigint;
        t2: bigint;
        t3: bigint;
        t4: bigint;
        serverResolution: bigint;
        opensConnection: boolean;
    }>;
}
/**
 * Exchanges over the client's socket while one is attached, through `fallback` otherwise.
 * @implements {ClockTransport}
 */
export class SocketClockTransport implements ClockTransport {
    /**
     * @param {ClockTransport} fallback
     * @param {number} [timeoutMs]
     */
    constructor(fallback: ClockTransport, timeoutMs?: number | undefined);
    fallback: ClockTransport;
    timeoutMs: number;
    /** @type {((text: string) => void) | null} */
    socket: ((text: string) => void) | null;
    /** @type {Map<bigint, { time: LocalTime, resolve: (sample: ClockSample) => void, reject: (error: Error) => void }>} */
    pending: Map<bigint, {
        time: LocalTime;
        resolve: (sample: ClockSample) => void;
        reject: (error: Error) => void;
    }>;
    get mayOpenConnection(): boolean;
    /** @param {LocalTime} time @returns {Promise<ClockSample>} */
    sample(time: LocalTime): Promise<ClockSample>;
    /**
     * Routes exchanges over `send` (which writes one text frame) until `detach()`.
     * @param {(text: string) => void} send
     */
    attach(send: (text: string) => void): void;
    /** The socket closed: exchanges waiting on it fail, and later ones take the fallback. */
    detach(): void;
    /**
     * Takes a frame the socket just received: true if it was a clock answer (`t:<t1>:<t2>:<t3>`),
     * consumed here. Call it first thing on arrival.
     * @param {string} text
     */
    receive(text: string): boolean;
}
export type ClockSample = import("./sample.js").ClockSample;
export type LocalTime = import("./local-time.js").LocalTime;
export type ClockTransport = {
    /**
     * One whole exchange, stamped on `time`.
     */
    sample: (time: LocalTime) => Promise<ClockSample>;
    /**
     * Whether a round's first exchange may open a connection.
     */
    mayOpenConnection: boolean;
};
