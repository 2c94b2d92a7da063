/** @typedef {import("../diff/operations.js").ObjectDiff} ObjectDiff */
/**
 * @typedef {object} RemoteChange
 * @property {string} key
 * @property {string} clientID
 * @property {string[]} changeIDs
 * @property {"M" | "-"} operation
 * @property {ObjectDiff} diff
 * @property {number | null} sourceVersion
 * @property {number} endVersion
 * @property {string | null} cursor
 * @property {bigint | null} editTime
 * @property {number | null} error
 * @property {string | null} message
 */
/**
 * Reads the changes of a JSON array of them, their edit times exact.
 * @param {string} text
 * @returns {RemoteChange[]}
 */
export function readChanges(text: string): RemoteChange[];
export type ObjectDiff = import("../diff/operations.js").ObjectDiff;
export type RemoteChange = {
    key: string;
    clientID: string;
    changeIDs: string[];
    operation: "M" | "-";
    diff: ObjectDiff;
    sourceVersion: number | null;
    endVersion: number;
    cursor: string | null;
    editTime: bigint | null;
    error: number | null;
    message: string | null;
};
