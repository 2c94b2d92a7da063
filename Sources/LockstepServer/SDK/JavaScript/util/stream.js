// Events as async iterators: every event published from the moment the iterator is made, in
// order, buffered for a slow reader and never dropped (unless a bound says otherwise).

/**
 * A queue that publishers push into and one reader takes from with `for await`.
 * @template T
 * @implements {AsyncIterableIterator<T>}
 */
export class EventStream {
  /**
   * @param {() => void} onClose Called once when the reader stops (a `break`, a `return()`).
   * @param {number} [bound] Keep only the newest this many unread events (progress is a level, not a log).
   */
  constructor(onClose, bound = Infinity) {
    /** @type {T[]} */
    this.buffer = [];
    /** @type {((result: IteratorResult<T>) => void) | null} */
    this.reader = null;
    this.closed = false;
    this.onClose = onClose;
    this.bound = bound;
  }

  /** @param {T} event */
  push(event) {
    if (this.closed) return;
    if (this.reader) {
      const reader = this.reader;
      this.reader = null;
      reader({ value: event, done: false });
      return;
    }
    this.buffer.push(event);
    if (this.buffer.length > this.bound) this.buffer.shift();
  }

  /** Ends the stream: the reader gets what is buffered, then the end. */
  finish() {
    this.closed = true;
    if (this.reader && this.buffer.length === 0) {
      const reader = this.reader;
      this.reader = null;
      reader({ value: undefined, done: true });
    }
  }

  /** @returns {Promise<IteratorResult<T>>} */
  next() {
    if (this.buffer.length > 0) return Promise.resolve({ value: /** @type {T} */ (this.buffer.shift()), done: false });
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.reader = resolve;
    });
  }

  /** @returns {Promise<IteratorResult<T>>} */
  async return() {
    if (!this.closed) this.onClose();
    this.closed = true;
    this.buffer = [];
    if (this.reader) this.reader({ value: undefined, done: true });
    this.reader = null;
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

/**
 * Hands what is published to every stream made from it, each with a filter of its own.
 * @template T
 */
export class Broadcast {
  constructor() {
    /** @type {Set<{ wants: (event: T) => boolean, stream: EventStream<T> }>} */
    this.listeners = new Set();
  }

  /**
   * A stream of what is published from now on that `wants` takes.
   * @param {(event: T) => boolean} [wants]
   * @param {number} [bound]
   * @returns {EventStream<T>}
   */
  stream(wants = () => true, bound = Infinity) {
    /** @type {{ wants: (event: T) => boolean, stream: EventStream<T> }} */
    const listener = { wants, stream: new EventStream(() => this.listeners.delete(listener), bound) };
    this.listeners.add(listener);
    return listener.stream;
  }

  /** @param {T} event */
  publish(event) {
    for (const { wants, stream } of this.listeners) if (wants(event)) stream.push(event);
  }

  finish() {
    for (const { stream } of this.listeners) stream.finish();
    this.listeners.clear();
  }
}
