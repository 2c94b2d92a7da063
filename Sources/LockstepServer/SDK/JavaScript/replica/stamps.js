// Who last wrote each member of an object, and when in corrected time (the Swift SDK's
// MemberStamps): the order in which concurrent writes of a member settle on this device.
import { objectKey } from "../store/tables.js";
import { compareUTF8 } from "../json/order.js";

/** @typedef {import("../store/tables.js").Transaction} Transaction */
/**
 * @typedef {object} MemberStamp
 * @property {bigint | null} time Nanoseconds on the server's clock; null for a write with no time.
 * @property {string} clientID
 * @property {string} changeID
 */

/**
 * Whether `a` was written before `b`: by time (none before any), then client id, then change id.
 * @param {MemberStamp} a
 * @param {MemberStamp} b
 */
function stampPrecedes(a, b) {
  if (a.time !== b.time) {
    if (a.time === null) return true;
    if (b.time === null) return false;
    return a.time < b.time;
  }
  if (a.clientID !== b.clientID) return compareUTF8(a.clientID, b.clientID) < 0;
  return compareUTF8(a.changeID, b.changeID) < 0;
}

/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @returns {Map<string, MemberStamp>}
 */
export function allStamps(tx, bucket, key) {
  const row = tx.get("stamps", objectKey(bucket, key));
  return new Map(row ? Object.entries(row) : []);
}

/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {Iterable<string>} members
 * @param {MemberStamp} stamp
 */
export function setStamps(tx, bucket, key, members, stamp) {
  const stamps = allStamps(tx, bucket, key);
  for (const name of members) stamps.set(name, stamp);
  tx.set("stamps", objectKey(bucket, key), Object.fromEntries(stamps));
}

/**
 * The time to stamp a local edit of `members` made at `now`: never before the latest write of
 * those members this device has seen, so that a clock estimate running behind another's does
 * not date an edit before the value it overwrote.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {Set<string>} members
 * @param {bigint | null} now
 * @returns {bigint | null}
 */
export function editTime(tx, bucket, key, members, now) {
  if (now === null) return null;
  const stamps = allStamps(tx, bucket, key);
  /** @type {bigint | null} */
  let latest = null;
  for (const name of members) {
    const time = stamps.get(name)?.time;
    if (time !== undefined && time !== null && (latest === null || time > latest)) latest = time;
  }
  if (latest === null) return now;
  const next = latest < INT64_MAX ? latest + 1n : INT64_MAX;
  return now > next ? now : next;
}

const INT64_MAX = 2n ** 63n - 1n;

/**
 * Stamps each of `members` with `stamp(member)` where that is later than what it carries;
 * returns the members that won.
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {Set<string>} members
 * @param {(member: string) => MemberStamp} stamp
 * @returns {Set<string>}
 */
export function raiseStamps(tx, bucket, key, members, stamp) {
  const current = allStamps(tx, bucket, key);
  const won = new Set();
  for (const name of members) {
    const existing = current.get(name);
    const candidate = stamp(name);
    if (existing === undefined || stampPrecedes(existing, candidate)) {
      current.set(name, candidate);
      won.add(name);
    }
  }
  if (won.size > 0) tx.set("stamps", objectKey(bucket, key), Object.fromEntries(current));
  return won;
}
