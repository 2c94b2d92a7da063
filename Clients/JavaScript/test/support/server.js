// A real `lockstep serve` for a test: on 127.0.0.1 and a port the OS picks, with a data
// directory of its own that goes with it, and helpers to make users and speak its HTTP API.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lockstepBinary } from "./paths.js";

/**
 * Starts a server; `stop()` it when done.
 * @param {string[]} [extraArguments] More `serve` options.
 */
export async function startServer(extraArguments = []) {
  const directory = await mkdtemp(join(tmpdir(), "lockstep-js-"));
  const dataDir = join(directory, "data");
  const child = spawn(lockstepBinary(), ["serve", "--data-dir", dataDir, "--port", "0", "--host", "127.0.0.1", "--log-level", "warning",
    // Cheap password hashes: the tests sign users up by the dozen on a shared machine.
    "--password-hash-cost", "1024", ...extraArguments], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let transcript = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${transcript}`)), 30000);
    const read = (chunk) => {
      transcript += chunk;
      const match = /Lockstep is listening on (http:\/\/[^,\s]+)/.exec(transcript);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => reject(new Error(`the server exited (${code}):\n${transcript}`)));
  });
  const credentials = JSON.parse(await readFile(join(dataDir, "default-app.json"), "utf8"));
  let users = 0;
  return {
    url,
    app: credentials.app_id,
    apiKey: credentials.api_key,
    adminToken: credentials.admin_token,
    dataDir,
    get transcript() {
      return transcript;
    },
    /** A new user, signed up with a password: `{ username, token }`. */
    async user(name = `user${++users}-${Math.random().toString(36).slice(2, 8)}@example.com`) {
      const response = await fetch(`${url}/1/${credentials.app_id}/create/`, {
        method: "POST", headers: { "X-Simperium-API-Key": credentials.api_key, "Content-Type": "application/json" },
        body: JSON.stringify({ username: name, password: "secret-password" }),
      });
      if (!response.ok) throw new Error(`create user: ${response.status} ${await response.text()}`);
      return { username: name, token: (await response.json()).access_token };
    },
    /** One request to the app's API with `token` (the admin token by default). */
    async request(method, path, body, token = credentials.admin_token) {
      const response = await fetch(`${url}/1/${credentials.app_id}/${path}`, {
        method, headers: { "X-Simperium-Token": token, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      let json = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        json = text;
      }
      return { status: response.status, headers: response.headers, json, text };
    },
    /** Ends the server at once (its data directory goes with it) and waits for it to exit. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGKILL");
        await exited;
      }
      await rm(directory, { recursive: true, force: true });
    },
    child,
  };
}

/**
 * Resolves once `condition()` holds (checked every 20 ms), or rejects after `timeoutMs` with `message`.
 * @param {() => unknown | Promise<unknown>} condition
 * @param {string} message
 * @param {number} [timeoutMs]
 */
export async function eventually(condition, message, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${message}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
