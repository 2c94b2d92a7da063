// A named group of buckets shared by its members (the Swift SDK's Space): a job's order shared
// by the movers on it, a match shared by its players. Calls that ask the server reject with a
// SpaceError for what it refused (a stranger gets "not-found", as for a space that does not
// exist), and a LockstepError for the rest.
import { LockstepError, SpaceError } from "../errors.js";
import { escape } from "../sync/server-api.js";
import { spaceBucketName } from "./names.js";
import { forgetBucket } from "../replica/forget.js";
import { spaceOfBucket } from "./names.js";

/** @typedef {import("../client.js").Lockstep} Lockstep */
/** @typedef {"reader" | "writer" | "owner"} SpaceRole */

const roles = ["reader", "writer", "owner"];

export class Space {
  /**
   * @param {Lockstep} client
   * @param {string} name
   */
  constructor(client, name) {
    this.client = client;
    /** The space's name: 1 to 64 of `a-z 0-9 _ -`, beginning with a letter or digit. */
    this.name = name;
  }

  /**
   * The space's bucket `name`: it syncs from now on as the bucket `__<space>.<name>`, as every
   * other client (Simperium's too) reaches it.
   * @param {string} name
   */
  bucket(name) {
    return this.client.bucket(spaceBucketName(this.name, name));
  }

  /** Makes the space, with this user as its owner; "name-taken" when another has the name. */
  async create() {
    await this.request("POST", [], { name: this.name }, { creating: true });
  }

  /**
   * Gives `email` the role `role`: a new member (or an invitation, for an address with no
   * account yet), or a member's new role. Owners only.
   * @param {string} email
   * @param {SpaceRole} role
   */
  async invite(email, role) {
    if (!roles.includes(role)) throw new SpaceError("invalid", `a role is "reader", "writer" or "owner", not ${JSON.stringify(role)}`, this.name);
    await this.request("POST", [this.name, "members"], { email, role });
  }

  /**
   * Everyone in the space and their role, invitations waiting included, as the server says now.
   * @returns {Promise<{ email: string, role: SpaceRole }[]>}
   */
  async members() {
    const answer = await this.request("GET", [this.name]);
    return (answer?.members ?? []).map((/** @type {any} */ member) => {
      if (typeof member?.email !== "string" || !roles.includes(member?.role)) {
        throw new LockstepError("protocol", `a space member without email or role: ${JSON.stringify(member)}`);
      }
      return { email: member.email, role: member.role };
    });
  }

  /**
   * Takes `email` out of the space (or withdraws their invitation). Owners only.
   * @param {string} email
   */
  async remove(email) {
    await this.request("DELETE", [this.name, "members", email], undefined, { removing: email });
  }

  /** Leaves the space, and forgets its buckets on this device. The last owner cannot. */
  async leave() {
    await this.request("POST", [this.name, "leave"]);
    await this.client.forgetSpace(this.name, `you left space ${this.name}`);
  }

  /** Deletes the space and everything in it, for every member, and forgets its buckets here. */
  async delete() {
    await this.request("DELETE", [this.name]);
    await this.client.forgetSpace(this.name, `you deleted space ${this.name}`);
  }

  /**
   * @param {string} method
   * @param {string[]} path
   * @param {unknown} [body]
   * @param {{ removing?: string, creating?: boolean }} [context]
   */
  async request(method, path, body, context = {}) {
    const response = await this.client.api.send(method, ["__spaces__", ...path.map(escape)].join("/"), { body });
    const text = await response.text();
    if (response.ok) return text ? JSON.parse(text) : null;
    let message = text;
    try {
      message = JSON.parse(text).error?.message ?? text;
    } catch {
      // The raw text.
    }
    throw spaceError(response.status, message, this.name, context);
  }
}

/**
 * What the server's refusal of a request on `space` means.
 * @param {number} status
 * @param {string} message
 * @param {string} space
 * @param {{ removing?: string, creating?: boolean }} context
 */
function spaceError(status, message, space, context) {
  switch (status) {
    case 400: return new SpaceError("invalid", message, space, status);
    case 403: return new SpaceError("forbidden", message, space, status);
    case 404:
      // Removing someone who is not in a space the caller owns is the one 404 that is not the
      // stranger's answer; the server tells the two apart by message alone.
      if (context.removing && message !== `there is no space ${space}`) {
        return new SpaceError("not-member", `${context.removing} is not a member of space ${space}`, space, status);
      }
      return new SpaceError("not-found", `there is no space ${space} (or you are not a member of it)`, space, status);
    case 409:
      if (context.creating) return new SpaceError("name-taken", `the space name ${space} is taken: choose another`, space, status);
      return new SpaceError("last-owner", message, space, status);
    default:
      return new LockstepError(status === 401 ? "unauthorized" : "http", `space ${space}: ${message}`, status);
  }
}

/**
 * Forgets every bucket of `space` this store syncs; resolves the losses.
 * @param {import("../replica/replica.js").Replica} replica
 * @param {string} space
 * @param {string} reason
 */
export async function forgetSpace(replica, space, reason) {
  const losses = [];
  for (const bucket of replica.bucketNames()) {
    if (spaceOfBucket(bucket) !== space) continue;
    const loss = await forgetBucket(replica, bucket, reason);
    if (loss) losses.push(loss);
  }
  return losses;
}
