// lockstep.js and LockstepCore fed the same generated documents and edits: every diff, every
// applied diff, every rebased diff, every text delta and merge must be the same bytes. Core
// answers through `lockstep diff-batch` (one process for the whole batch). LOCKSTEP_SEED=n
// replays a run; the seed is printed with every failure.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Random, text, edited, object, editedDocument, value } from "./support/generate.js";
import { coreAnswers } from "./support/lockstep-batch.js";
import { diff, patch, transform, makeDelta, applyDelta, mergeText, serialize } from "../src/jsondiff.js";

const seed = Number(process.env.LOCKSTEP_SEED ?? Math.floor(Math.random() * 2 ** 32));
const cases = Number(process.env.LOCKSTEP_CASES ?? 600);

/** What lockstep.js answers to a request, written as LockstepCore writes its answers. */
function answer(request) {
  try {
    switch (request.op) {
      case "diff": return serialize(diff(request.a, request.b, request.schema));
      case "apply": return serialize(patch(request.object, request.diff));
      case "transform": return serialize(transform(request.a, request.b, request.base, request.winner));
      case "delta": return serialize(makeDelta(request.a, request.b));
      case "apply-delta": return serialize(applyDelta(request.delta, request.text));
      case "merge-text": return serialize(mergeText(request.base, request.edited, request.current));
      case "serialize": return serialize(request.value);
    }
  } catch (error) {
    return "error";
  }
}

/** Core's answer, with any error's words left out (only that it is an error must agree). */
const normalized = (line) => (line.startsWith('{"error":') ? "error" : line);

/** Runs the requests through both and reports every disagreement with what reproduces it. */
async function compare(name, requests) {
  const core = await coreAnswers(requests);
  const disagreements = [];
  requests.forEach((request, index) => {
    const mine = answer(request);
    if (mine !== normalized(core[index])) disagreements.push({ request, core: core[index], js: mine });
  });
  assert.deepEqual(disagreements.slice(0, 3), [], `${name}: ${disagreements.length} of ${requests.length} differ (LOCKSTEP_SEED=${seed})`);
}

test(`texts: deltas, their application and text merges (seed ${seed})`, async () => {
  const random = new Random(seed);
  const requests = [];
  for (let index = 0; index < cases; index++) {
    const base = text(random, random.chance(0.2) ? 400 : 40);
    const a = edited(random, base);
    const b = edited(random, base);
    requests.push({ op: "delta", a: base, b: a });
    requests.push({ op: "apply-delta", text: base, delta: makeDelta(base, a) });
    requests.push({ op: "merge-text", base, edited: a, current: b });
    if (random.chance(0.1)) requests.push({ op: "apply-delta", text: b, delta: makeDelta(base, a) });
  }
  await compare("texts", requests);
});

test(`documents: diffs, applied diffs and rebased diffs, both winners (seed ${seed})`, async () => {
  const random = new Random(seed ^ 0x5bd1e995);
  const requests = [];
  for (let index = 0; index < cases; index++) {
    const base = object(random);
    const mine = editedDocument(random, base);
    const theirs = editedDocument(random, base);
    const a = diff(base, mine);
    const b = diff(base, theirs);
    requests.push({ op: "diff", a: base, b: mine });
    requests.push({ op: "apply", object: base, diff: a });
    requests.push({ op: "transform", base, a, b, winner: random.chance(0.5) ? "incoming" : "applied" });
    requests.push({ op: "serialize", value: value(random, 3) });
  }
  await compare("documents", requests);
});

test(`schemas: increments, index lists and line lists rebased (seed ${seed})`, async () => {
  const random = new Random(seed ^ 0x27d4eb2f);
  const requests = [];
  for (let index = 0; index < cases / 3; index++) {
    const base = { n: random.int(100), list: Array.from({ length: random.int(5) }, () => random.int(9)), lines: [text(random, 5), text(random, 5)] };
    const change = () => ({
      n: base.n + random.int(7) - 3,
      list: random.chance(0.5) ? base.list.concat([random.int(9)]) : base.list.filter(() => random.chance(0.7)),
      lines: random.chance(0.5) ? [text(random, 5)].concat(base.lines) : base.lines.slice(1),
    });
    const schema = { n: { otype: "integer" }, list: { otype: "list" }, lines: { otype: "list_dmp" } };
    const mine = change();
    const theirs = change();
    const a = diff(base, mine, schema);
    const b = diff(base, theirs, schema);
    requests.push({ op: "diff", a: base, b: mine, schema });
    requests.push({ op: "apply", object: base, diff: a });
    requests.push({ op: "transform", base, a, b, winner: random.chance(0.5) ? "incoming" : "applied" });
  }
  await compare("schemas", requests);
});
