export class SocketSession {
    /**
     * Whether the socket opens now: a handshake, closed at once.
     * @param {SyncContext} context
     */
    static opens(context: SyncContext): Promise<boolean>;
    /**
     * @param {SyncContext} context
     * @param {string[]} buckets The buckets the store synced when the socket opened.
     * @param {() => void} onConnected Called once the server accepted the token on a channel.
     */
    constructor(context: SyncContext, buckets: string[], onConnected: () => void);
    context: import("./context.js").SyncContext;
    channels: string[];
    /** @type {Phase[]} */
    phases: Phase[];
    /** @type {(string | null)[]} The reason the server gave as it ended a channel that is reopening. */
    reopenReasons: (string | null)[];
    onConnected: () => void;
    /** @type {string[]} */
    inbound: string[];
    /** @type {(() => void) | null} */
    wakeReader: (() => void) | null;
    /** @type {((text: string) => void) | null} Writes one text frame while the socket is open. */
    send: ((text: string) => void) | null;
    /** How long the server may take to answer the upgrade (as long as an open socket may be silent). */
    get upgradeLimitMs(): number;
    /**
     * Runs the connection until it drops (rejects), or `signal` aborts (resolves).
     * @param {AbortSignal} signal
     */
    run(signal: AbortSignal): Promise<void>;
    /** @param {string} bucket */
    initMessage(bucket: string): string;
    /**
     * Handles frames as they arrive, what queued meanwhile together.
     * @param {AbortSignal} signal
     */
    readLoop(signal: AbortSignal): Promise<void>;
    /**
     * Frames in order, a run of changes on live channels in one transaction.
     * @param {Frame[]} frames
     */
    receive(frames: Frame[]): Promise<void>;
    /**
     * `c:` frames of live channels: one transaction for all, each bucket's changes in order.
     * @param {Frame[]} frames
     */
    receiveLive(frames: Frame[]): Promise<void>;
    /**
     * What a batch left to do on the wire: whole objects to resend, changes to retry soon.
     * @param {ReceiveOutcome} outcome
     * @param {ChangeBatch} batch
     * @param {number} channel
     */
    followUp(outcome: ReceiveOutcome, batch: ChangeBatch, channel: number): void;
    /** @param {Frame} frame */
    receiveOne(frame: Frame): Promise<void>;
    /**
     * Asks for what the bucket needs next: an index page, or the changes since its cursor.
     * @param {number} channel
     * @param {string} bucket
     */
    start(channel: number, bucket: string): void;
    /**
     * Sends new outbox changes of live channels whenever the outbox changes.
     * @param {AbortSignal} signal
     */
    flushLoop(signal: AbortSignal): Promise<void>;
    /**
     * Opens a channel on this socket for each bucket opened since, and again the channel of a
     * forgotten bucket opened anew. (Reconnecting would end every channel, and with them what the
     * connection holds in presence buckets.)
     * @param {AbortSignal} signal
     */
    openChannels(signal: AbortSignal): Promise<void>;
    /**
     * `N:?:{"code":403,…}`: the server ended a space's channel as this user's right changed;
     * the channel is opened again once to learn whether they still have one. Others are ignored.
     * @param {number} channel
     * @param {string} bucket
     * @param {string} payload
     */
    channelEnded(channel: number, bucket: string, payload: string): void;
    /**
     * `N:auth:{"code":404,…}` on a space's bucket (a stranger's answer): asks whether this user is
     * still in the space; if not the bucket is forgotten and the channel stays closed, else it is
     * opened again shortly. false for any other refusal (the token's).
     * @param {number} channel
     * @param {string} bucket
     * @param {string} payload
     */
    spaceChannelRefused(channel: number, bucket: string, payload: string): Promise<boolean>;
}
export type SyncContext = import("./context.js").SyncContext;
export type Frame = import("./frames.js").Frame;
export type ReceiveOutcome = import("../replica/remote.js").ReceiveOutcome;
export type ChangeBatch = import("../replica/remote.js").ChangeBatch;
export type Phase = "authorizing" | "reopening" | "indexing" | "catchingUp" | "live" | "forgotten";
