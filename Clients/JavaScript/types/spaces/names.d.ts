/**
 * Throws a SpaceError ("invalid") unless `name` is 1 to 64 of `a-z 0-9 _ -`, beginning with a
 * letter or digit.
 * @param {string} name
 */
export function validateSpaceName(name: string): void;
/**
 * The space a bucket name belongs to; null for a user's own (or an app-wide) bucket.
 * @param {string} bucket
 * @returns {string | null}
 */
export function spaceOfBucket(bucket: string): string | null;
export function spaceBucketName(space: string, bucket: string): string;
