// Attachments through lockstep.js against a real server: the reference goes only once the
// bytes are up, another device downloads and checks them, and an upload cut short resumes
// from the server's offset in a later session.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Lockstep } from "../src/lockstep.js";
import { startServer, eventually } from "./support/server.js";

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const open = (token, options = {}) => Lockstep.open({
  server: server.url, app: server.app, token, store: "memory", heartbeatIntervalMs: 1000, backoff: { initialMs: 50, maximumMs: 500 }, ...options,
});

/** @param {number} size */
function bytes(size) {
  const data = new Uint8Array(size);
  for (let index = 0; index < size; index++) data[index] = (index * 31 + 7) & 0xff;
  return new Blob([data], { type: "image/jpeg" });
}

test("an attachment uploads with progress, its reference goes after its bytes, and another device downloads it", async () => {
  const { token } = await server.user();
  const a = await open(token, { uploadChunkSize: 64 * 1024 });
  const b = await open(token);
  const items = a.bucket("items");
  await items.put("box-12", { name: "box 12" });
  a.sync.start();
  b.sync.start();
  await a.sync.waitUntilIdle();
  const steps = [];
  const watching = (async () => {
    for await (const step of a.transfers()) {
      steps.push(step);
      if (step.state === "completed" || step.state === "failed") return;
    }
  })();
  const photo = await items.attach(bytes(300_000), { to: "box-12", member: "photo" });
  assert.deepEqual(items.attachment("photo", "box-12"), photo);
  await watching;
  assert.equal(steps.at(-1).state, "completed");
  assert.ok(steps.some((step) => step.state === "transferring" && step.completedBytes > 0 && step.completedBytes < 300_000));
  await a.sync.waitUntilIdle();
  const onB = await eventually(() => b.bucket("items").attachment("photo", "box-12"), "B has the reference");
  const downloaded = await b.bucket("items").data(onB);
  assert.equal(downloaded.size, 300_000);
  assert.deepEqual(new Uint8Array(await downloaded.arrayBuffer()), new Uint8Array(await bytes(300_000).arrayBuffer()));
  await a.close();
  await b.close();
});

test("an upload cut short resumes from the server's offset in the next session", async () => {
  const { token } = await server.user();
  const directory = await mkdtemp(join(tmpdir(), "lockstep-js-upload-"));
  try {
    const first = await open(token, { store: { directory }, uploadChunkSize: 100_000 });
    first.sync.start();
    const photo = await first.bucket("items").attach(bytes(1_000_000), { to: "crate", member: "photo" });
    await eventually(() => first.uploads[0]?.acknowledged >= 200_000, "part of the upload is on the server");
    await first.close();
    // The object refers to nothing but the photo: it waits, whole, for the bytes.
    assert.equal((await server.request("GET", "items/i/crate", undefined, token)).status, 404);
    const second = await open(token, { store: { directory }, uploadChunkSize: 100_000 });
    const resumedFrom = second.uploads[0].acknowledged;
    assert.ok(resumedFrom >= 200_000, `the next session starts from ${resumedFrom}`);
    const steps = [];
    const watching = (async () => {
      for await (const step of second.progress(photo)) {
        steps.push(step.completedBytes);
        if (step.state === "completed") return;
      }
    })();
    second.sync.start();
    await watching;
    assert.ok(steps.every((completed) => completed >= resumedFrom), `no byte before ${resumedFrom} went again: ${steps}`);
    await second.sync.waitUntilIdle();
    const onServer = await server.request("GET", "items/i/crate", undefined, token);
    assert.equal(onServer.json.photo.$blob, "sha256:" + photo.sha256);
    await second.close();
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});
