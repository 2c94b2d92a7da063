/**
 * A queue that publishers push into and one reader takes from with `for await`.
 * @template T
 * @implements {AsyncIterableIterator<T>}
 */
export class EventStream<T> implements AsyncIterableIterator<T> {
    /**
     * @param {() => void} onClose Called once when the reader stops (a `break`, a `return()`).
     * @param {number} [bound] Keep only the newest this many unread events (progress is a level, not a log).
     */
    constructor(onClose: () => void, bound?: number | undefined);
    /** @type {T[]} */
    buffer: T[];
    /** @type {((result: IteratorResult<T>) => void) | null} */
    reader: ((result: IteratorResult<T>) => void) | null;
    closed: boolean;
    onClose: () => void;
    bound: number;
    /** @param {T} event */
    push(event: T): void;
    /** Ends the stream: the reader gets what is buffered, then the end. */
    finish(): void;
    /** @returns {Promise<IteratorResult<T>>} */
    next(): Promise<IteratorResult<T>>;
    /** @returns {Promise<IteratorResult<T>>} */
    return(): Promise<IteratorResult<T>>;
    [Symbol.asyncIterator](): EventStream<T>;
}
/**
 * Hands what is published to every stream made from it, each with a filter of its own.
 * @template T
 */
export class Broadcast<T> {
    /** @type {Set<{ wants: (event: T) => boolean, stream: EventStream<T> }>} */
    listeners: Set<{
        wants: (event: T) => boolean;
        stream: EventStream<T>;
    }>;
    /**
     * A stream of what is published from now on that `wants` takes.
     * @param {(event: T) => boolean} [wants]
     * @param {number} [bound]
     * @returns {EventStream<T>}
     */
    stream(wants?: ((event: T) => boolean) | undefined, bound?: number | undefined): EventStream<T>;
    /** @param {T} event */
    publish(event: T): void;
    finish(): void;
}
