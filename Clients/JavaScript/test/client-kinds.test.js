// Generated interleavings of several kinds of client on one bucket: two lockstep.js clients,
// the Swift SDK (the built `lockstep client`, a store on disk, synced now and then) and a plain
// HTTP writer (as simperium3 or a backend script writes: a POST of some members). They append
// text to a member, bump counters, add and remove objects, and go offline and online at random.
// Afterwards every client holds what the server holds, byte for byte, and every text appended
// to an object that survives is in it, once. LOCKSTEP_SEED replays a run.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Lockstep, LockstepError, serialize } from "../src/lockstep.js";
import { Random } from "./support/generate.js";
import { lockstepBinary } from "./support/paths.js";
import { assertEachAppendedOnce, serverObjectsOnceClientsHoldThem } from "./support/convergence.js";
import { startServer } from "./support/server.js";

const run = promisify(execFile);

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const runs = Number(process.env.LOCKSTEP_RUNS ?? 2);
const firstSeed = Number(process.env.LOCKSTEP_SEED ?? Math.floor(Math.random() * 2 ** 31));

for (let round = 0; round < runs; round++) {
  const seed = firstSeed + round;
  test(`lockstep.js, the Swift SDK and an HTTP writer with random edits end identical (seed ${seed})`, { timeout: 180_000 }, async () => {
    const random = new Random(seed);
    const { token } = await server.user();
    const directory = await mkdtemp(join(tmpdir(), "lockstep-js-kinds-"));
    /** Runs `lockstep client …` on the Swift SDK's store; its output, or null when it refused. */
    const swift = async (/** @type {string[]} */ ...command) => {
      try {
        const { stdout } = await run(lockstepBinary(), [
          "client", "--store", directory, "--url", server.url, "--app", server.app, "--token", token, ...command,
        ], { timeout: 60_000 });
        return stdout;
      } catch (error) {
        if (command[0] === "sync") throw error;
        return null; // No such object on the Swift SDK's store yet, or removed: as in any app.
      }
    };
    const clients = await Promise.all([0, 1].map(() => Lockstep.open({
      server: server.url, app: server.app, token, store: "memory", heartbeatIntervalMs: 1000,
      backoff: { initialMs: 20, maximumMs: 200 },
    })));
    const buckets = clients.map((client) => client.bucket("rooms"));
    const online = [true, true];
    for (const client of clients) client.sync.start();
    for (let index = 0; index < 3; index++) await buckets[0].put(`room-${index}`, { count: 0, text: "", tags: [] });
    await clients[0].sync.waitUntilIdle();
    await swift("sync", "--once", "--bucket", "rooms", "--timeout", "30");
    /** @type {Map<string, string[]>} The text each object was given, token by token. */
    const appended = new Map();
    const append = (/** @type {string} */ key, /** @type {string} */ token) => appended.set(key, (appended.get(key) ?? []).concat([token]));

    for (let step = 0; step < 40; step++) {
      const keys = buckets[random.int(2)].list().map((entry) => entry.key);
      const key = keys.length > 0 ? random.pick(keys) : null;
      const token = `k${step};`;
      const roll = random.int(100);
      try {
        if (roll < 40) {
          // A lockstep.js client: an edit, a new object, a removal, or offline/online.
          const who = random.int(2);
          const bucket = buckets[who];
          const what = random.int(10);
          if (what < 5 && key !== null) {
            await bucket.update(key, (object) => {
              object.text = (typeof object.text === "string" ? object.text : "") + token;
              object.count = (typeof object.count === "number" ? object.count : 0) + 1;
            });
            append(key, token);
          } else if (what < 7) {
            await bucket.put(`js-${step}`, { count: 0, text: token });
            append(`js-${step}`, token);
          } else if (what < 8 && key !== null) {
            await bucket.delete(key);
          } else {
            online[who] = !online[who];
            if (online[who]) clients[who].sync.start();
            else await clients[who].sync.stop();
          }
        } else if (roll < 70) {
          // The Swift SDK: text appended as the app would (read, change, put), objects made,
          // sent when it next syncs.
          const what = random.int(10);
          if (what < 5 && key !== null) {
            const held = await swift("get", "rooms", key);
            if (held !== null) {
              const object = JSON.parse(held);
              object.text = (typeof object.text === "string" ? object.text : "") + token;
              object.tags = (Array.isArray(object.tags) ? object.tags : []).concat([step]);
              if ((await swift("put", "rooms", key, JSON.stringify(object))) !== null) append(key, token);
            }
          } else if (what < 7) {
            if ((await swift("put", "rooms", `swift-${step}`, JSON.stringify({ count: 0, text: token }))) !== null) append(`swift-${step}`, token);
          } else {
            await swift("sync", "--once", "--timeout", "30");
          }
        } else if (roll < 85 && key !== null) {
          // A plain HTTP writer: some members of an object, merged into it.
          await server.request("POST", `rooms/i/${key}`, { [`http-${random.int(3)}`]: step }, token);
        } else {
          await new Promise((resolve) => setTimeout(resolve, 5 + random.int(35)));
        }
      } catch (error) {
        // Another client deleted it a moment ago: as in any app.
        if (!(error instanceof LockstepError && (error.code === "removed" || error.code === "not-found"))) throw error;
      }
    }

    for (const client of clients) client.sync.start();
    await swift("sync", "--once", "--timeout", "60");
    for (const client of clients) await client.sync.waitUntilIdle({ timeoutMs: 30_000 });
    // The Swift SDK sent its last edits; once more, to receive everyone's.
    await swift("sync", "--once", "--timeout", "60");
    const final = await serverObjectsOnceClientsHoldThem({
      server, token, bucket: "rooms", buckets, clients, message: `every lockstep.js client holds what the server holds (seed ${seed})`,
    });
    // The Swift SDK's objects, as its serializer writes them: the same bytes as the server's.
    const listed = String(await swift("list", "rooms")).trim().split("\n").filter((line) => line.length > 0);
    const swiftObjects = new Map(listed.map((line) => [line.slice(0, line.indexOf("\t")), line.slice(line.indexOf("\t") + 1)]));
    assert.deepEqual(Array.from(swiftObjects.keys()).sort(), Object.keys(final).sort(), `the Swift SDK's keys (seed ${seed})`);
    for (const [key, bytes] of swiftObjects) assert.equal(bytes, serialize(final[key]), `the Swift SDK's ${key} (seed ${seed})`);
    assert.match(String(await swift("status")), /^0 pending$/m, `the Swift SDK sent everything (seed ${seed})`);
    assertEachAppendedOnce(appended, final, seed);
    for (const client of clients) await client.close();
    await rm(directory, { recursive: true, force: true });
  });
}
