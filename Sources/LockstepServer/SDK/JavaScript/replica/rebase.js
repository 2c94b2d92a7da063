// How local edits not yet acknowledged survive changes from elsewhere (the Swift SDK's
// Replica+Rebase): the local object is the ghost plus pending edits; when a remote change moves
// the ghost, the edits are rebased over it with jsondiff transform, and where both touched one
// member the merge rules decide, as the server will when our change reaches it.
import { makeObjectDiff } from "../diff/make.js";
import { applyObjectDiff } from "../diff/apply.js";
import { transformObjectDiff } from "../diff/transform.js";
import { isEmptyDiff } from "../diff/operations.js";
import { member, put } from "../json/value.js";

/** @typedef {import("../json/value.js").JSONObject} JSONObject */
/** @typedef {import("../diff/operations.js").ObjectDiff} ObjectDiff */
/** @typedef {import("../diff/transform.js").ConflictWinner} ConflictWinner */

/**
 * `state`, made from `base`, moved onto `newBase` = `base` + `remote`. `remoteWins` are the
 * members where a collision goes to the remote change; elsewhere `winner` decides.
 * @param {JSONObject} state
 * @param {JSONObject} base
 * @param {ObjectDiff} remote
 * @param {JSONObject} newBase
 * @param {ConflictWinner} winner
 * @param {Set<string>} [remoteWins]
 * @returns {JSONObject}
 */
export function rebaseState(state, base, remote, newBase, winner, remoteWins = new Set()) {
  const pending = makeObjectDiff(base, state);
  if (isEmptyDiff(pending)) return newBase;
  try {
    /** @type {ObjectDiff} */
    const theirs = {};
    /** @type {ObjectDiff} */
    const rest = {};
    for (const name of Object.keys(pending)) put(remoteWins.has(name) ? theirs : rest, name, pending[name]);
    const rebased = transformObjectDiff(rest, remote, base, winner);
    const yielding = transformObjectDiff(theirs, remote, base, "applied");
    for (const name of Object.keys(yielding)) if (member(rebased, name) === undefined) put(rebased, name, yielding[name]);
    return applyObjectDiff(rebased, newBase);
  } catch {
    // The edits no longer fit the new version: keep every member they set, whole.
    const merged = { ...newBase };
    for (const name of Object.keys(pending)) {
      const value = member(state, name);
      if (value !== undefined) put(merged, name, value);
    }
    return merged;
  }
}

/**
 * The edits made after `appliedState` (what the local object was when an applied change was
 * made) put on top of the server's version `serverData`.
 * @param {JSONObject} local
 * @param {JSONObject} appliedState
 * @param {JSONObject} serverData
 */
export function replay(local, appliedState, serverData) {
  try {
    return applyObjectDiff(makeObjectDiff(appliedState, local), serverData);
  } catch {
    return serverData;
  }
}
