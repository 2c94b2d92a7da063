/**
 * Forgets every bucket of `space` this store syncs; resolves the losses.
 * @param {import("../replica/replica.js").Replica} replica
 * @param {string} space
 * @param {string} reason
 */
export function forgetSpace(replica: import("../replica/replica.js").Replica, space: string, reason: string): Promise<import("../replica/forget.js").SpaceLoss[]>;
export class Space {
    /**
     * @param {Lockstep} client
     * @param {string} name
     */
    constructor(client: Lockstep, name: string);
    client: import("../client.js").Lockstep;
    /** The space's name: 1 to 64 of `a-z 0-9 _ -`, beginning with a letter or digit. */
    name: string;
    /**
     * The space's bucket `name`: it syncs from now on as the bucket `__<space>.<name>`, as every
     * other client (Simperium's too) reaches it.
     * @param {string} name
     */
    bucket(name: string): import("../bucket.js").Bucket;
    /** Makes the space, with this user as its owner; "name-taken" when another has the name. */
    create(): Promise<void>;
    /**
     * Gives `email` the role `role`: a new member (or an invitation, for an address with no
     * account yet), or a member's new role. Owners only.
     * @param {string} email
     * @param {SpaceRole} role
     */
    invite(email: string, role: SpaceRole): Promise<void>;
    /**
     * Everyone in the space and their role, invitations waiting included, as the server says now.
     * @returns {Promise<{ email: string, role: SpaceRole }[]>}
     */
    members(): Promise<{
        email: string;
        role: SpaceRole;
    }[]>;
    /**
     * Takes `email` out of the space (or withdraws their invitation). Owners only.
     * @param {string} email
     */
    remove(email: string): Promise<void>;
    /** Leaves the space, and forgets its buckets on this device. The last owner cannot. */
    leave(): Promise<void>;
    /** Deletes the space and everything in it, for every member, and forgets its buckets here. */
    delete(): Promise<void>;
    /**
     * @param {string} method
     * @param {string[]} path
     * @param {unknown} [body]
     * @param {{ removing?: string, creating?: boolean }} [context]
     */
    request(method: string, path: string[], body?: unknown, context?: {
        removing?: string | undefined;
        creating?: boolean | undefined;
    } | undefined): Promise<any>;
}
export type Lockstep = import("../client.js").Lockstep;
export type SpaceRole = "reader" | "writer" | "owner";
