/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @returns {Map<string, MemberStamp>}
 */
export function allStamps(tx: Transaction, bucket: string, key: string): Map<string, MemberStamp>;
/**
 * @param {Transaction} tx
 * @param {string} bucket
 * @param {string} key
 * @param {Iterable<string>} members
 * @param {MemberStamp} stamp
 */
export function setStamps(tx: Transaction, bucket: string, key: string, members: Iterable<string>, stamp: MemberStamp): void;
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
export function editTime(tx: Transaction, bucket: string, key: string, members: Set<string>, now: bigint | null): bigint | null;
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
export function raiseStamps(tx: Transaction, bucket: string, key: string, members: Set<string>, stamp: (member: string) => MemberStamp): Set<string>;
export type Transaction = import("../store/tables.js").Transaction;
export type MemberStamp = {
    /**
     * Nanoseconds on the server's clock; null for a write with no time.
     */
    time: bigint | null;
    clientID: string;
    changeID: string;
};
