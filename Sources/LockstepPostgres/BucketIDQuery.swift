import LockstepServer
import PostgresNIO

extension PostgresQuery.StringInterpolation {
    /// The number of a scope's bucket row, as a subquery: the change feed's indexes lead with
    /// it (`changes.bucket_id`), not with the bucket's three names.
    ///
    /// ```swift
    /// "SELECT … FROM changes WHERE bucket_id = \(bucketIDOf: scope) AND sequence > \(cursor)"
    /// ```
    ///
    /// PostgreSQL runs it once per statement (an init plan) and then walks the index by the
    /// number; a bucket without a row has no changes, and the subquery's `NULL` matches none.
    mutating func appendInterpolation(bucketIDOf scope: BucketScope) {
        appendLiteral("(SELECT id FROM buckets WHERE app_id = ")
        appendInterpolation(scope.appID)
        appendLiteral(" AND owner = ")
        appendInterpolation(scope.ownerKey)
        appendLiteral(" AND name = ")
        appendInterpolation(scope.bucket)
        appendLiteral(")")
    }
}
