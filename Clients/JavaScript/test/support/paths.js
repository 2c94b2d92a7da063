// Where the tests find the repository's files and the built `lockstep` binary.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Clients/JavaScript. */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The repository's root. */
export const repositoryRoot = resolve(packageRoot, "../..");

/** A file of the team's shared folder (`../shared` beside the repository), or the vendored copy of the tests. */
export function sharedFile(path) {
  const shared = join(repositoryRoot, "..", "shared", path);
  if (existsSync(shared)) return shared;
  return join(repositoryRoot, "Tests/LockstepCoreTests/Fixtures", path.split("/").pop());
}

/**
 * The `lockstep` binary to test against: $LOCKSTEP_BINARY, else the newest debug or release
 * build of this checkout. Throws, saying how to build one, when there is none.
 */
export function lockstepBinary() {
  const candidates = [process.env.LOCKSTEP_BINARY, join(repositoryRoot, ".build/debug/lockstep"), join(repositoryRoot, ".build/release/lockstep")];
  const found = candidates.find((path) => path && existsSync(path));
  if (!found) throw new Error("no lockstep binary: run `swift build` at the repository's root, or set LOCKSTEP_BINARY");
  return found;
}
