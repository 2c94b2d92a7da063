// Runs `lockstep diff-batch`: LockstepCore answering a batch of jsondiff requests, one a line.
import { spawn } from "node:child_process";
import { lockstepBinary } from "./paths.js";

/**
 * LockstepCore's answers to `requests`, in order, as the JSON text it wrote for each.
 * @param {object[]} requests
 * @returns {Promise<string[]>}
 */
export function coreAnswers(requests) {
  return new Promise((resolve, reject) => {
    const child = spawn(lockstepBinary(), ["diff-batch"], { stdio: ["pipe", "pipe", "inherit"] });
    /** @type {Buffer[]} */
    const chunks = [];
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", (status) => {
      if (status !== 0) return reject(new Error(`lockstep diff-batch exited with ${status}`));
      const lines = Buffer.concat(chunks).toString("utf8").split("\n");
      lines.pop();
      if (lines.length !== requests.length) return reject(new Error(`${lines.length} answers to ${requests.length} requests`));
      resolve(lines);
    });
    child.stdin.end(requests.map((request) => JSON.stringify(request)).join("\n") + "\n");
  });
}
