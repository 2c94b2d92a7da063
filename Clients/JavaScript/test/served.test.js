// The server serves lockstep.js at versioned, immutable URLs, and what it serves is these
// files, byte for byte: `/sdk/lockstep.js` redirects to `/sdk/lockstep-<version>.js`, which
// re-exports `./<version>/lockstep.js`, below which every module of src/ is served.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import { startServer } from "./support/server.js";
import { packageRoot } from "./support/paths.js";
import { version } from "../src/version.js";

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

/** Every .js file below `directory`, by its path relative to it. */
async function modules(directory, root = directory) {
  const found = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) found.push(...(await modules(path, root)));
    else if (entry.name.endsWith(".js")) found.push(relative(root, path));
  }
  return found.sort();
}

test("package.json and version.js name the same version", async () => {
  const manifest = JSON.parse(await readFile(join(packageRoot, "package.json"), "utf8"));
  assert.equal(manifest.version, version);
});

test("/sdk/lockstep.js redirects to the versioned entry, which re-exports the versioned modules", async () => {
  const redirect = await fetch(`${server.url}/sdk/lockstep.js`, { redirect: "manual" });
  assert.equal(redirect.status, 302);
  assert.equal(redirect.headers.get("cache-control"), "no-cache");
  const location = redirect.headers.get("location");
  const match = /^\/sdk\/lockstep-([0-9A-Za-z.]+-[0-9a-f]{12})\.js$/.exec(location ?? "");
  assert.ok(match, `redirected to ${location}`);
  assert.ok(match[1].startsWith(version + "-"));
  const entry = await fetch(server.url + location);
  assert.equal(entry.status, 200);
  assert.match(entry.headers.get("content-type"), /^text\/javascript/);
  assert.equal(entry.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal(entry.headers.get("access-control-allow-origin"), "*");
  assert.match(await entry.text(), new RegExp(`export \\* from "\\./${match[1].replace(/\./g, "\\.")}/lockstep\\.js";`));
});

test("every module is served byte for byte as it is in src/, immutable, with an ETag that answers 304", async () => {
  const location = (await fetch(`${server.url}/sdk/lockstep.js`, { redirect: "manual" })).headers.get("location");
  const served = /** @type {string} */ (location).replace(/^\/sdk\/lockstep-/, "").replace(/\.js$/, "");
  const source = join(packageRoot, "src");
  const paths = await modules(source);
  assert.ok(paths.length > 20, `${paths.length} modules`);
  const hash = createHash("sha256");
  for (const path of paths) {
    const bytes = await readFile(join(source, path));
    hash.update(path + "\0").update(bytes).update("\0");
    const response = await fetch(`${server.url}/sdk/${served}/${path}`);
    assert.equal(response.status, 200, path);
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes, `${path} is not served as it is`);
    const etag = /** @type {string} */ (response.headers.get("etag"));
    assert.equal(etag, `"sha256-${createHash("sha256").update(bytes).digest("hex")}"`);
    assert.equal(response.headers.get("cache-control"), "public, max-age=31536000, immutable");
    const again = await fetch(`${server.url}/sdk/${served}/${path}`, { headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304, path);
  }
  // The version names these bytes: the same hash over the files as the server's.
  assert.equal(served, `${version}-${hash.digest("hex").slice(0, 12)}`);
});

test("another version, or a file that is not a module, is not found", async () => {
  assert.equal((await fetch(`${server.url}/sdk/0.0.1-000000000000/lockstep.js`)).status, 404);
  assert.equal((await fetch(`${server.url}/sdk/lockstep-0.0.1.js`)).status, 404);
  const location = (await fetch(`${server.url}/sdk/lockstep.js`, { redirect: "manual" })).headers.get("location");
  const served = /** @type {string} */ (location).replace(/^\/sdk\/lockstep-/, "").replace(/\.js$/, "");
  assert.equal((await fetch(`${server.url}/sdk/${served}/../package.json`)).status, 404);
  assert.equal((await fetch(`${server.url}/sdk/${served}/store/store.d.ts`)).status, 404);
});
