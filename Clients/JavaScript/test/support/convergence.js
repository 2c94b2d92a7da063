// What the generated-interleaving tests check at the end of a run: every lockstep.js client
// holds the server's bytes with nothing left to send, and every text appended to an object
// that survives is in it exactly once.
import assert from "node:assert/strict";
import { serialize } from "../../src/lockstep.js";
import { eventually } from "./server.js";

/**
 * Waits until every bucket holds what the server holds in `bucket`, byte for byte, and every
 * client's outbox is empty; then returns the server's objects by key.
 * @param {{ server: any, token: string, bucket: string, buckets: any[], clients: any[], message: string }} run
 * @returns {Promise<Record<string, any>>}
 */
export async function serverObjectsOnceClientsHoldThem({ server, token, bucket, buckets, clients, message }) {
  const onServer = async () => {
    const page = await server.request("GET", `${bucket}/index?data=1&limit=1000`, undefined, token);
    return Object.fromEntries(page.json.index.map((/** @type {any} */ entry) => [entry.id, entry.d]));
  };
  await eventually(async () => {
    const held = serialize(await onServer());
    return buckets.every((bucket) => serialize(Object.fromEntries(bucket.list().map((/** @type {any} */ entry) => [entry.key, entry.object]))) === held)
      && clients.every((client) => client.outbox.pending.length === 0);
  }, message, 20_000);
  return onServer();
}

/**
 * Asserts that each text appended to an object's `text` member is in it once, for the objects
 * that survive in `final` (a removed object's appends are gone with it).
 * @param {Map<string, string[]>} appended the tokens appended, by object key
 * @param {Record<string, any>} final the server's objects by key
 * @param {number} seed the run's seed, named in a failure
 */
export function assertEachAppendedOnce(appended, final, seed) {
  for (const [key, tokens] of appended) {
    const text = final[key]?.text;
    if (typeof text !== "string") continue; // The object was removed.
    for (const token of tokens) {
      const count = text.split(token).length - 1;
      assert.equal(count, 1, `${key}: "${token}" is in ${JSON.stringify(text)} ${count} times (seed ${seed})`);
    }
  }
}
