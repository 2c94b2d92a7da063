// lockstep.js against a real `lockstep serve`: writes that sync, offline edits that land once,
// concurrent edits that merge, removals, refusals, the HTTP fallback, and the outbox kept in a
// file store across sessions.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Lockstep, LockstepError } from "../src/lockstep.js";
import { startServer, eventually } from "./support/server.js";

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
before(async () => {
  server = await startServer(["--max-object-bytes", "2000"]);
});
after(async () => {
  await server?.stop();
});

/** A client of `token` with a memory store, fast heartbeats and reconnects. */
function open(token, options = {}) {
  return Lockstep.open({
    server: server.url, app: server.app, token, store: "memory", heartbeatIntervalMs: 1000,
    backoff: { initialMs: 50, maximumMs: 500 }, pollingWindowMs: 1000, ...options,
  });
}

test("a put made before the sync starts reaches the server, and another device", async () => {
  const { token } = await server.user();
  const a = await open(token);
  const b = await open(token);
  await a.bucket("notes").put("groceries", { title: "Groceries", items: ["milk"] });
  const arrived = eventually(() => b.bucket("notes").get("groceries"), "B has the note");
  a.sync.start();
  b.sync.start();
  await a.sync.waitUntilIdle({ timeoutMs: 10000 });
  assert.equal(a.sync.state, "streaming");
  const onServer = await server.request("GET", "notes/i/groceries", undefined, token);
  assert.deepEqual(onServer.json, { title: "Groceries", items: ["milk"] });
  assert.deepEqual(await arrived, { title: "Groceries", items: ["milk"] });
  await a.close();
  await b.close();
});

test("edits to one text made on two offline devices both land, once, and the devices agree", async () => {
  const { token } = await server.user();
  const a = await open(token);
  const b = await open(token);
  const notesA = a.bucket("notes");
  const notesB = b.bucket("notes");
  await notesA.put("n", { text: "milk eggs" });
  a.sync.start();
  b.sync.start();
  await eventually(() => notesB.get("n"), "B has the note");
  await a.sync.waitUntilIdle();
  await a.sync.stop();
  await b.sync.stop();
  await notesA.update("n", (note) => { note.text = "oat milk eggs"; });
  await notesB.update("n", (note) => { note.text = "milk eggs bread"; });
  a.sync.start();
  b.sync.start();
  await a.sync.waitUntilIdle();
  await b.sync.waitUntilIdle();
  await eventually(() => notesA.get("n")?.text === notesB.get("n")?.text, "the devices agree");
  assert.equal(notesA.get("n")?.text, "oat milk eggs bread");
  assert.equal((await server.request("GET", "notes/i/n", undefined, token)).json.text, "oat milk eggs bread");
  await a.close();
  await b.close();
});

test("a removal wins for good: the key cannot be written again, and the other device's edit is dropped", async () => {
  const { token } = await server.user();
  const a = await open(token);
  const b = await open(token);
  a.sync.start();
  b.sync.start();
  await a.bucket("items").put("sofa", { room: "lounge" });
  await eventually(() => b.bucket("items").get("sofa"), "B has the sofa");
  await a.bucket("items").delete("sofa");
  await eventually(() => b.bucket("items").get("sofa") === undefined, "B saw the removal");
  await assert.rejects(b.bucket("items").put("sofa", { room: "attic" }), (error) => error instanceof LockstepError && error.code === "removed");
  await a.sync.waitUntilIdle();
  assert.equal((await server.request("GET", "items/i/sofa", undefined, token)).status, 404);
  await a.close();
  await b.close();
});

test("a change the server refuses is rolled back, reported with its status and message, and kept as rejected", async () => {
  const { token } = await server.user();
  const client = await open(token);
  client.sync.start();
  const notes = client.bucket("notes");
  await notes.put("small", { text: "fits" });
  await client.sync.waitUntilIdle();
  const refused = new Promise((resolve) => notes.addEventListener("change", (event) => {
    if (event.origin.type === "rejected") resolve(event);
  }));
  await notes.put("small", { text: "x".repeat(3000) });
  const event = /** @type {any} */ (await refused);
  assert.equal(event.origin.code, 413);
  assert.match(event.origin.message, /\d/);
  assert.deepEqual(notes.get("small"), { text: "fits" });
  assert.equal(client.outbox.rejected.length, 1);
  assert.equal(client.outbox.rejected[0].code, 413);
  await client.outbox.dismissRejected();
  assert.equal(client.outbox.rejected.length, 0);
  await client.close();
});

test("with no WebSocket the client syncs over HTTP, both ways", async () => {
  const { token } = await server.user();
  const polling = await open(token, { WebSocket: null });
  const streaming = await open(token);
  polling.sync.start();
  streaming.sync.start();
  await polling.bucket("notes").put("p", { by: "polling" });
  await eventually(() => streaming.bucket("notes").get("p"), "the streaming client has the polling client's note");
  assert.equal(polling.sync.state, "polling");
  await streaming.bucket("notes").put("s", { by: "streaming" });
  await eventually(() => polling.bucket("notes").get("s"), "the polling client has the streaming client's note");
  await polling.close();
  await streaming.close();
});

test("a session's requests leave no listener behind on it: thirty round trips over HTTP raise no leak warning", async () => {
  const warnings = [];
  const listen = (warning) => { if (warning.name === "MaxListenersExceededWarning") warnings.push(warning.message); };
  process.on("warning", listen);
  try {
    const { token } = await server.user();
    const polling = await open(token, { WebSocket: null });
    polling.sync.start();
    for (let index = 0; index < 30; index++) {
      await polling.bucket("notes").put(`n${index}`, { index });
      await polling.sync.waitUntilIdle();
    }
    assert.equal(polling.sync.state, "polling");
    await polling.close();
    // Node reports the warning on the next turn of the loop.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, []);
  } finally {
    process.off("warning", listen);
  }
});

test("a file store keeps every unsent edit across sessions, and they land once", async () => {
  const { token } = await server.user();
  const directory = await mkdtemp(join(tmpdir(), "lockstep-js-store-"));
  try {
    const first = await open(token, { store: { directory } });
    for (let index = 0; index < 20; index++) await first.bucket("notes").put(`n${index}`, { index });
    await first.bucket("notes").update("n3", (note) => { note.text = "edited"; });
    await first.close();
    const second = await open(token, { store: { directory } });
    assert.equal(second.outbox.pending.length, 20);
    assert.deepEqual(second.bucket("notes").get("n3"), { index: 3, text: "edited" });
    second.sync.start();
    await second.sync.waitUntilIdle();
    const index = await server.request("GET", "notes/index?data=1&limit=100", undefined, token);
    assert.equal(index.json.index.length, 20);
    // Each object was created once, with its edit: version 1 (a change applied twice would make a 2).
    assert.deepEqual(index.json.index.map((entry) => entry.v), new Array(20).fill(1));
    assert.deepEqual(index.json.index.find((entry) => entry.id === "n3").d, { index: 3, text: "edited" });
    await second.close();
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test("the server clock agrees with /time within its error bar, and stamps edits", async () => {
  const { token } = await server.user();
  const client = await open(token);
  client.sync.start();
  await client.bucket("notes").put("t", { at: 1 });
  await client.sync.waitUntilIdle();
  await eventually(() => client.clock.now(), "the clock is calibrated");
  const now = /** @type {import("../src/lockstep.js").ServerTime} */ (client.clock.now());
  const wall = BigInt(Date.now()) * 1_000_000n;
  // The server runs on this machine's clock: the estimate is within its bar plus the few ms between the reads.
  const distance = now.nanoseconds > wall ? now.nanoseconds - wall : wall - now.nanoseconds;
  assert.ok(distance < now.errorBound + 50_000_000n, `off by ${distance} ns with a bar of ${now.errorBound} ns`);
  assert.ok(now.errorBound < 50_000_000n);
  await client.bucket("notes").update("t", (note) => { note.at = 2; });
  await client.sync.waitUntilIdle();
  // The server records each change's edit time: the admin's feed shows it.
  const feed = await server.request("GET", "notes/all?newest=10");
  const times = feed.json.filter((change) => change.id.endsWith("/t")).map((change) => change.t);
  // The put came before the first exchange, so it had no time to give; the update has one.
  assert.equal(times.length, 2, JSON.stringify(feed.json));
  assert.ok(typeof times[1] === "number" && Math.abs(times[1] / 1e6 - Date.now()) < 60_000, JSON.stringify(times));
  await client.close();
});

test("an object's versions, newest first", async () => {
  const { token } = await server.user();
  const client = await open(token);
  client.sync.start();
  const notes = client.bucket("notes");
  await notes.put("v", { n: 1 });
  await client.sync.waitUntilIdle();
  await notes.put("v", { n: 2 });
  await client.sync.waitUntilIdle();
  await notes.put("v", { n: 3 });
  await client.sync.waitUntilIdle();
  const versions = await notes.versions("v", { limit: 5 });
  assert.deepEqual(versions.map((entry) => [entry.version, entry.data.n]), [[3, 3], [2, 2], [1, 1]]);
  await client.close();
});
