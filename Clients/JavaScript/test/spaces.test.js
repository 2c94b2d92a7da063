// Spaces through lockstep.js against a real server: made, shared, listed; a reader cannot
// write; a member taken off a space forgets its buckets, told why, with every unsent edit kept
// as rejected.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Lockstep, SpaceError } from "../src/lockstep.js";
import { startServer, eventually } from "./support/server.js";

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const open = (token) => Lockstep.open({
  server: server.url, app: server.app, token, store: "memory", heartbeatIntervalMs: 1000, backoff: { initialMs: 50, maximumMs: 500 },
});

test("a space is made, shared and synced; a stranger gets not-found; bad names are refused before asking", async () => {
  const owner = await server.user();
  const mover = await server.user();
  const stranger = await server.user();
  const a = await open(owner.token);
  const b = await open(mover.token);
  const c = await open(stranger.token);
  const job = a.space("job-1");
  await job.create();
  await job.invite(mover.username, "writer");
  assert.deepEqual((await job.members()).map((member) => member.role).sort(), ["owner", "writer"]);
  assert.deepEqual(await b.spaces(), [{ name: "job-1", role: "writer" }]);
  await assert.rejects(c.space("job-1").members(), (error) => error instanceof SpaceError && error.code === "not-found");
  assert.throws(() => a.space("Job 1"), (error) => error instanceof SpaceError && error.code === "invalid");
  await assert.rejects(a.space("job-1").create(), (error) => error instanceof SpaceError && error.code === "name-taken");
  a.sync.start();
  b.sync.start();
  await job.bucket("items").put("sofa", { room: "lounge" });
  await eventually(() => b.space("job-1").bucket("items").get("sofa"), "the mover has the sofa");
  assert.equal(b.space("job-1").bucket("items").name, "__job-1.items");
  for (const client of [a, b, c]) await client.close();
});

test("a member removed from a space forgets it, and keeps every unsent edit as rejected with the reason", async () => {
  const owner = await server.user();
  const mover = await server.user();
  const a = await open(owner.token);
  const b = await open(mover.token);
  const job = a.space("job-2");
  await job.create();
  await job.invite(mover.username, "writer");
  a.sync.start();
  b.sync.start();
  const items = b.space("job-2").bucket("items");
  await a.space("job-2").bucket("items").put("lamp", { room: "hall" });
  await eventually(() => items.get("lamp"), "the mover has the lamp");
  await b.sync.waitUntilIdle();
  await b.sync.stop();
  await items.update("lamp", (item) => { item.room = "attic"; });
  const lost = (async () => {
    for await (const loss of b.lostSpaces()) return loss;
  })();
  const revoked = new Promise((resolve) => items.addEventListener("change", (event) => {
    if (event.origin.type === "revoked") resolve(event);
  }));
  await job.remove(mover.username);
  b.sync.start();
  const loss = await lost;
  assert.equal(loss.space, "job-2");
  assert.equal((await revoked).key, "lamp");
  assert.equal(items.get("lamp"), undefined);
  const rejected = b.outbox.rejected;
  assert.equal(rejected.length, 1);
  assert.equal(rejected[0].code, 403);
  assert.equal(rejected[0].key, "lamp");
  await assert.rejects(items.put("lamp", { room: "x" }), (error) => error.code === "not-found");
  await a.close();
  await b.close();
});

test("a reader's write is refused with the server's 403 and message", async () => {
  const owner = await server.user();
  const customer = await server.user();
  const a = await open(owner.token);
  const b = await open(customer.token);
  await a.space("job-3").create();
  await a.space("job-3").invite(customer.username, "reader");
  b.sync.start();
  const items = b.space("job-3").bucket("items");
  const refused = new Promise((resolve) => items.addEventListener("change", (event) => {
    if (event.origin.type === "rejected") resolve(event.origin);
  }));
  await items.put("box", { please: "return" });
  const origin = await refused;
  assert.equal(origin.code, 403);
  assert.ok(origin.message.length > 0);
  await a.close();
  await b.close();
});
