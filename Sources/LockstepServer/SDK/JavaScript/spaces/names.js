// The naming rule of spaces, as the server enforces it: checked here too, since a bucket of a
// space with a bad name would be refused when its channel opens.
import { SpaceError } from "../errors.js";

const maximumSpaceNameLength = 64;

/**
 * Throws a SpaceError ("invalid") unless `name` is 1 to 64 of `a-z 0-9 _ -`, beginning with a
 * letter or digit.
 * @param {string} name
 */
export function validateSpaceName(name) {
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(name)) {
    throw new SpaceError("invalid",
      `${JSON.stringify(name.slice(0, 80))} is not a valid space name: use 1 to ${maximumSpaceNameLength} of a-z 0-9 _ -, beginning with a letter or digit`,
      name);
  }
}

/**
 * The name of bucket `bucket` of space `space` on the wire: `__<space>.<bucket>`.
 * @param {string} space
 * @param {string} bucket
 */
export const spaceBucketName = (space, bucket) => `__${space}.${bucket}`;

/**
 * The space a bucket name belongs to; null for a user's own (or an app-wide) bucket.
 * @param {string} bucket
 * @returns {string | null}
 */
export function spaceOfBucket(bucket) {
  if (!bucket.startsWith("__")) return null;
  const dot = bucket.indexOf(".");
  return dot < 0 ? null : bucket.slice(2, dot);
}
