// Generated interleavings, as the Swift suite's convergence tests: three clients of one user
// edit a bucket at random (text appended to a member, counters, lists, new objects,
// removals), going offline and online at random, with edit times that run mostly forwards and
// sometimes skewed. Afterwards every client holds what the server holds, byte for byte, and
// every text appended to an object that survives is in it, once. LOCKSTEP_SEED replays a run.
import { test, before, after } from "node:test";
import { Lockstep, LockstepError } from "../src/lockstep.js";
import { Random } from "./support/generate.js";
import { assertEachAppendedOnce, serverObjectsOnceClientsHoldThem } from "./support/convergence.js";
import { startServer } from "./support/server.js";

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const runs = Number(process.env.LOCKSTEP_RUNS ?? 3);
const firstSeed = Number(process.env.LOCKSTEP_SEED ?? Math.floor(Math.random() * 2 ** 31));

for (let run = 0; run < runs; run++) {
  const seed = firstSeed + run;
  test(`three clients with random edits and random disconnects end identical (seed ${seed})`, { timeout: 120_000 }, async () => {
    const random = new Random(seed);
    const { token } = await server.user();
    const clocks = [0n, 0n, 0n];
    const clients = await Promise.all(clocks.map((_, who) => Lockstep.open({
      server: server.url, app: server.app, token, store: "memory", heartbeatIntervalMs: 1000,
      backoff: { initialMs: 20, maximumMs: 200 }, editTimes: () => clocks[who],
    })));
    const buckets = clients.map((client) => client.bucket("rooms"));
    const online = [true, true, true];
    for (const client of clients) client.sync.start();
    for (let index = 0; index < 4; index++) await buckets[0].put(`room-${index}`, { count: 0, text: "", tags: [] });
    await clients[0].sync.waitUntilIdle();
    /** @type {Map<string, string[]>} The text each object was given, token by token. */
    const appended = new Map();

    for (let step = 0; step < 60; step++) {
      const who = random.int(3);
      const bucket = buckets[who];
      // Edit times on the server's clock: mostly increasing, sometimes skewed by a device.
      clocks[who] = 1_800_000_000_000_000_000n + BigInt(step) * 1_000_000n + BigInt(random.int(3_000_001) - 1_500_000);
      const keys = bucket.list().map((entry) => entry.key);
      const key = keys.length > 0 ? random.pick(keys) : null;
      const roll = random.int(100);
      try {
        if (roll < 45 && key !== null) {
          const member = random.pick(["count", "text", "text", "tags", `extra-${who}`]);
          const token = `${who}.${step};`;
          await bucket.update(key, (object) => {
            if (member === "text") object.text = (typeof object.text === "string" ? object.text : "") + token;
            else if (member === "tags") object.tags = (Array.isArray(object.tags) ? object.tags : []).concat([step]);
            else object[member] = random.int(1000);
          });
          if (member === "text") appended.set(key, (appended.get(key) ?? []).concat([token]));
        } else if (roll < 55) {
          await bucket.put(`new-${step}`, { count: step, by: who, text: "" });
        } else if (roll < 60 && key !== null) {
          await bucket.delete(key);
        } else if (roll < 75) {
          online[who] = !online[who];
          if (online[who]) clients[who].sync.start();
          else await clients[who].sync.stop();
        } else {
          await new Promise((resolve) => setTimeout(resolve, 5 + random.int(35)));
        }
      } catch (error) {
        // Another device deleted it a moment ago: as in any app.
        if (!(error instanceof LockstepError && (error.code === "removed" || error.code === "not-found"))) throw error;
      }
    }

    for (const client of clients) client.sync.start();
    for (const client of clients) await client.sync.waitUntilIdle({ timeoutMs: 30_000 });
    const final = await serverObjectsOnceClientsHoldThem({
      server, token, bucket: "rooms", buckets, clients, message: `every client holds what the server holds (seed ${seed})`,
    });
    assertEachAppendedOnce(appended, final, seed);
    for (const client of clients) await client.close();
  });
}
