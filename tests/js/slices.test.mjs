// Work cut in slices (static/js/slices.js) and the page's walk built that way (walk.js
// beginWalkSteps): the same result as at once, with turns for the page between slices, and
// cancelled at a turn.
import { test } from "node:test";
import assert from "node:assert/strict";
import { finish, runSliced } from "../../static/js/slices.js";
import { beginWalk, beginWalkSteps, outputOf } from "../../static/js/walk.js";
import { groupTree, groupTreeSteps } from "../../static/js/groups.js";

function* counting(n) {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += i;
    yield;
  }
  return sum;
}

test("finish runs a generator to its end; runSliced gives the same answer with pauses", async () => {
  assert.equal(finish(counting(1000)), 499500);
  let pauses = 0;
  const sum = await runSliced(counting(1000), { budget: 0, pause: async () => { pauses += 1; } });
  assert.equal(sum, 499500);
  assert.equal(pauses, 1000);
  let few = 0;
  await runSliced(counting(1000), { budget: 1e9, pause: async () => { few += 1; } });
  assert.equal(few, 0, "within the budget: no turn at all");
});

test("runSliced stops at a turn once cancelled, with an AbortError, and closes the generator", async () => {
  let closed = false;
  function* work() {
    try {
      for (;;) yield;
    } finally {
      closed = true;
    }
  }
  let turns = 0;
  await assert.rejects(runSliced(work(), { budget: 0, pause: async () => { turns += 1; }, cancelled: () => turns >= 3 }),
    (e) => e.name === "AbortError");
  assert.equal(turns, 3);
  assert.ok(closed);
});

/** A chain of `lines` statements `x = x * 1.0001` as the server's graph event has it. */
function chainHead(lines) {
  const nodes = [{ id: "n0", index: 0, label: "x", op: "leaf", role: "leaf", shape: [], inputs: [] }];
  const edges = [];
  for (let i = 1; i < lines; i++) {
    const c = 2 * i - 1;
    const m = 2 * i;
    nodes.push({ id: `n${c}`, index: c, label: "1.0001", op: "const", role: "const", shape: [], inputs: [] });
    nodes.push({ id: `n${m}`, index: m, label: `x${i}`, op: "mul", role: "op", shape: [], inputs: [`n${m - 2}`, `n${c}`] });
    edges.push({ id: `n${m - 2}->n${m}#0`, source: `n${m - 2}`, target: `n${m}`, arg: 0 });
    edges.push({ id: `n${c}->n${m}#1`, source: `n${c}`, target: `n${m}`, arg: 1 });
  }
  const groups = [{ id: "g0", kind: "repeat", name: `x = x * 1.0001 ×${lines - 1}`, first: 1, end: 2 * lines - 1, parent: null }];
  for (let i = 1; i < lines; i++) groups.push({ id: `g${i}`, kind: "statement", name: `x${i}`, first: 2 * i - 1, end: 2 * i + 1, parent: "g0" });
  return { version: 1, graph: { nodes, edges, groups, blocks: [] }, ledger: null };
}

test("the walk built in slices is the walk built at once (a 20,000-node chain)", async () => {
  const head = chainHead(10_000);
  const atOnce = beginWalk(head, "x = 1.0\n", { groupAbove: 400 });
  let pauses = 0;
  const sliced = await runSliced(beginWalkSteps(head, "x = 1.0\n", { groupAbove: 400 }), {
    budget: 0, pause: async () => { pauses += 1; },
  });
  assert.ok(pauses >= 5, `${pauses} turns`);
  assert.equal(Object.keys(sliced.nodesById).length, 19_999);
  assert.deepEqual(sliced.plan, atOnce.plan);
  assert.deepEqual(sliced.view.nodes.map((n) => n.id), atOnce.view.nodes.map((n) => n.id));
  assert.deepEqual([...sliced.view.rep], [...atOnce.view.rep]);
  assert.deepEqual([...sliced.groups.collapsed], [...atOnce.groups.collapsed]);
  assert.equal(sliced.groups.overview, true); // past MAX_DRAWN_NODES: the outermost groups only
  // Before the done event the output is the last node that feeds nothing, found once.
  assert.equal(outputOf(sliced), "n19998");
  assert.equal(sliced.sink, "n19998");
});

test("the group tree built in slices owns every node as at once, also for nodes out of order", () => {
  const head = chainHead(50);
  const shuffled = { ...head.graph, nodes: [...head.graph.nodes].reverse() };
  const tree = groupTree(shuffled);
  assert.equal(tree.owner.get("n2"), "g1");
  assert.equal(tree.owner.get("n0"), undefined);
  assert.deepEqual([...finish(groupTreeSteps(head.graph)).owner].sort(), [...tree.owner].sort());
});
