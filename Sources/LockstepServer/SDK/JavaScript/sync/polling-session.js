// Sync over plain HTTP for when the socket cannot be opened (a proxy that refuses upgrades, a
// runtime without WebSocket): index pages from `GET /index`, changes sent with `POST /changes`,
// the feed long-polled with `GET /changes?cv=` (the Swift SDK's PollingSession).
import { LockstepError } from "../errors.js";
import { BucketsChanged } from "./context.js";
import { position, restartIndex, takeIndexPage } from "../replica/index-walk.js";
import { markAccepted, takeOutgoing } from "../replica/outgoing.js";
import { sleep } from "../util/wakeup.js";

/** @typedef {import("./context.js").SyncContext} SyncContext */

export class PollingSession {
  /**
   * @param {SyncContext} context
   * @param {string[]} buckets
   */
  constructor(context, buckets) {
    this.context = context;
    this.buckets = buckets;
  }

  /**
   * Syncs every bucket until `signal` aborts or one of its loops fails, which ends the others.
   * @param {AbortSignal} signal
   */
  async run(signal) {
    const session = new AbortController();
    const stop = () => session.abort();
    signal.addEventListener("abort", stop, { once: true });
    const generation = this.context.replica.bucketsChanged.generation;
    /** @param {Promise<void>} loop */
    const guarded = (loop) => loop.catch((error) => {
      session.abort();
      throw error;
    });
    try {
      await Promise.all([
        guarded(this.watchBuckets(generation, session.signal)),
        ...this.buckets.flatMap((bucket) => [guarded(this.receiveLoop(bucket, session.signal)), guarded(this.sendLoop(bucket, session.signal))]),
      ]);
    } finally {
      signal.removeEventListener("abort", stop);
      session.abort();
    }
  }

  /**
   * @param {number} generation
   * @param {AbortSignal} signal
   */
  async watchBuckets(generation, signal) {
    await this.context.replica.bucketsChanged.wait(generation, signal);
    if (!signal.aborted) throw new BucketsChanged();
  }

  /**
   * Takes the bucket's changes until aborted; returns when the bucket is forgotten because this
   * user lost its space.
   * @param {string} bucket
   * @param {AbortSignal} signal
   */
  async receiveLoop(bucket, signal) {
    const { context } = this;
    const { replica, api } = context;
    try {
      while (!signal.aborted) {
        const here = position(replica, bucket);
        if (here.kind === "index") {
          context.setLive(bucket, false);
          await this.walkIndex(bucket, here.mark, signal);
          continue;
        }
        if (!context.isLive(bucket)) {
          // The feed long-polls when there is nothing new; the index's `current` says at once
          // whether we are caught up.
          const probe = await api.indexPage(bucket, null, 1, false, signal);
          if (probe.current === here.after) context.setLive(bucket, true);
        }
        const changes = await api.changes(bucket, here.after, context.configuration.indexPageSize, signal);
        if (changes === null) {
          // The feed's 404: the cursor is unknown, or the bucket's space is gone.
          if (await context.forgetIfSpaceLost(bucket)) return;
          await restartIndex(replica, bucket);
          continue;
        }
        await context.take([{ bucket, changes }]);
        context.setLive(bucket, true);
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof LockstepError && error.status === 404 && (await context.forgetIfSpaceLost(bucket))) return;
      throw error;
    }
  }

  /**
   * @param {string} bucket
   * @param {string | null} start
   * @param {AbortSignal} signal
   */
  async walkIndex(bucket, start, signal) {
    let mark = start;
    let first = start === null;
    while (!signal.aborted) {
      const page = await this.context.api.indexPage(bucket, mark, this.context.configuration.indexPageSize, true, signal);
      const complete = await takeIndexPage(this.context.replica, bucket, page, first);
      this.context.progress.signal();
      if (complete) return;
      mark = page.mark;
      first = false;
    }
  }

  /**
   * Sends the bucket's changes until aborted, once the bucket has caught up (diffs are made
   * against ghosts).
   * @param {string} bucket
   * @param {AbortSignal} signal
   */
  async sendLoop(bucket, signal) {
    const { context } = this;
    const { replica, api } = context;
    try {
      let progress = context.progress.generation;
      while (!context.isLive(bucket)) {
        progress = await context.progress.wait(progress, signal);
        if (signal.aborted) return;
      }
      let seen = replica.outboxChanged.generation;
      let resend = true;
      while (!signal.aborted) {
        const changes = await takeOutgoing(replica, bucket, resend);
        resend = false;
        if (changes.length === 0) {
          seen = await replica.outboxChanged.wait(seen, signal);
          continue;
        }
        const results = await api.post(bucket, changes, signal);
        await markAccepted(replica, bucket, results.filter((result) => result.error === null).map((result) => result.changeIDs));
        const failures = results.filter((result) => result.error !== null);
        if (failures.length > 0) {
          const [outcome] = await context.take([{ bucket, changes: failures }]);
          if (outcome.retryLater) {
            await sleep(1000, signal);
            resend = true;
          }
          if (outcome.resendFull.size > 0) resend = true;
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof LockstepError && error.status === 404 && (await context.forgetIfSpaceLost(bucket))) return;
      throw error;
    }
  }
}
