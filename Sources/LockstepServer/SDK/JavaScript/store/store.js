// What a replica needs of durable storage: its tables loaded whole at start, commits of the
// rows each transaction wrote (in order, each all or nothing), and attachment bytes by name.

/** @typedef {import("./tables.js").Change} Change */
/** @typedef {import("./tables.js").TableName} TableName */

/**
 * @typedef {object} Store
 * @property {string} kind "indexeddb", "file" or "memory".
 * @property {() => Promise<Map<TableName, Map<string, any>>>} load Every table's rows.
 * @property {(changes: Change[], tables: import("./tables.js").Tables) => Promise<void>} commit Writes
 *   (a value of undefined deletes) that land together or not at all; durable when the promise
 *   resolves. `tables` holds every row as the writes leave it, for a store that keeps several
 *   tables' rows of one key together; read it before the promise's first await.
 * @property {(name: string, bytes: Blob) => Promise<void>} putBlob Stores attachment bytes, durably.
 * @property {(name: string) => Promise<Blob | null>} getBlob The bytes stored under `name`.
 * @property {(name: string) => Promise<void>} deleteBlob
 * @property {() => Promise<void>} close
 */

export {};
