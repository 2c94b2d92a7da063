/**
 * Reads a schema from its JSON form, `{"count": {"otype": "integer"}}`; a hint may nest
 * `attributes` for an object's members and `item` for a list's elements.
 * @param {unknown} json @param {import("./errors.js").DiffPath} [path]
 * @returns {DiffSchema}
 */
export function readSchema(json: unknown, path?: import("./errors.js").DiffPath | undefined): DiffSchema;
export type DiffSchema = {
    otype: "replace" | "list" | "list_dmp" | "integer" | "string" | undefined;
    members: {
        [member: string]: DiffSchema;
    };
    item: DiffSchema | undefined;
};
