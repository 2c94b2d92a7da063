// lockstep.js: the Lockstep sync client for browsers and Node. Everything an app uses is
// exported here; the modules behind it are the implementation.
//
//   import { Lockstep } from "https://sync.example.com/sdk/lockstep.js";
//   const client = await Lockstep.open({ server: "https://sync.example.com", app, token });

export { Lockstep } from "./client.js";
export { version } from "./version.js";
export { Bucket } from "./bucket.js";
export { Space } from "./spaces/space.js";
export { Outbox } from "./outbox.js";
export { ServerClock } from "./clock/server-clock.js";
export { ServerTime } from "./clock/server-time.js";
export { LockstepError, SpaceError, AttachmentError } from "./errors.js";
export { ChangeEvent, DetailEvent } from "./events.js";
export { MemoryStore } from "./store/memory.js";
export { IndexedDBStore } from "./store/indexeddb.js";
export { diff, patch, transform, makeDelta, applyDelta, mergeText, serialize, conflictWinner, DiffError, TextDeltaError } from "./jsondiff.js";
export { attachmentOf, references } from "./attachments/reference.js";
