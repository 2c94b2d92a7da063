// Every vector of Simperium's jsondiff assertions.json (../shared/protocol), run as
// LockstepCore's ReferenceVectorTests run them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { diff, patch, transform } from "../src/jsondiff.js";
import { jsonEqual } from "../src/json/value.js";
import { sharedFile } from "./support/paths.js";

const vectors = JSON.parse(readFileSync(sharedFile("protocol/jsondiff-assertions.json"), "utf8"));

test("every vector is loaded", () => assert.equal(vectors.length, 29));

for (const [kind, name, inputs, expected] of vectors) {
  test(`${kind}: ${name}`, () => {
    const schema = inputs.length > (kind === "diff" ? 2 : 3) ? inputs[inputs.length - 1] : undefined;
    const base = inputs[0];
    if (kind === "diff") {
      assert.deepEqual({ o: "O", v: diff(base, inputs[1], schema) }, expected);
      assert.ok(jsonEqual(patch(base, expected.v), inputs[1]));
    } else if (kind === "transform") {
      const mine = diff(base, inputs[1], schema);
      const theirs = diff(base, inputs[2], schema);
      const result = patch(patch(base, theirs), transform(mine, theirs, base));
      assert.ok(jsonEqual(result, expected), JSON.stringify(result));
    } else {
      assert.ok(jsonEqual(patch(base, diff(base, inputs[1])), expected));
    }
  });
}
