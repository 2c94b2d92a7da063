// Presence through lockstep.js: in a bucket the admin made a presence bucket, what a streaming
// client inserts lives while its connection does; when it goes, the server deletes it, and the
// other clients hear the deletion as a remote change.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Lockstep } from "../src/lockstep.js";
import { startServer, eventually } from "./support/server.js";

let server;
before(async () => {
  server = await startServer(["--heartbeat-timeout-seconds", "2"]);
});
after(async () => {
  await server?.stop();
});

const open = (token) => Lockstep.open({
  server: server.url, app: server.app, token, store: "memory", heartbeatIntervalMs: 500, backoff: { initialMs: 50, maximumMs: 500 },
});

test("a player inserted over the socket vanishes for the others when its client closes", async () => {
  assert.equal((await server.request("POST", "__options__/i/lobby", { shared: true, presence: "client" })).status, 200);
  const alice = await server.user();
  const bob = await server.user();
  const a = await open(alice.token);
  const b = await open(bob.token);
  assert.deepEqual(await a.options("lobby"), { shared: true, readOnly: false, presence: "client", json: { shared: true, presence: "client" } });
  const lobbyA = a.bucket("lobby");
  const lobbyB = b.bucket("lobby");
  a.sync.start();
  b.sync.start();
  await eventually(() => a.sync.state === "streaming" && b.sync.state === "streaming", "both stream");
  await a.sync.waitUntilIdle();
  await lobbyA.put("alice", { name: "Alice" });
  await eventually(() => lobbyB.get("alice"), "Bob sees Alice");
  const gone = new Promise((resolve) => lobbyB.addEventListener("change", (event) => {
    if (event.key === "alice" && event.kind === "deleted") resolve(event.origin.type);
  }));
  await a.close();
  assert.equal(await gone, "remote");
  assert.equal(lobbyB.get("alice"), undefined);
  await b.close();
});
