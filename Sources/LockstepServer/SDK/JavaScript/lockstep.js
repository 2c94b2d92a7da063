// lockstep.js: the Lockstep sync client for browsers and Node. Everything an app uses is
// exported here; the modules behind it are the implementation.

export { version } from "./version.js";
export { diff, patch, transform, makeDelta, applyDelta, mergeText, serialize, conflictWinner, DiffError, TextDeltaError } from "./jsondiff.js";
