// Walking the computation graph for navigation (issue 8, section 2): which nodes a node
// depends on (its ancestors, through `inputs`) or feeds (its descendants), the edges
// between them, and search by name. Pure: no DOM, so `node --test` covers it
// (tests/js/graphwalk.test.mjs). Nodes are the graph JSON's ({id, name, label, inputs, ...},
// docs/trace-format.md); edges are {id, source, target}.

import { plainDigits } from "./groups.js";

/** What search compares: lower case, superscripts plain, no spaces or parentheses ("x⁽¹⁰⁰⁰⁾", "x(1000)", "X 1000" -> "x1000"). */
export function searchKey(text) {
  return plainDigits(text).toLowerCase().replace(/[\s()]+/g, "");
}

/** The default output of `graph` ({nodes, edges}): the last node created that feeds nothing
 * (the last name assigned), or null. */
export function sinkOf(graph) {
  const feeds = new Set(graph.edges.map((e) => e.source));
  return graph.nodes.findLast((n) => !feeds.has(n.id))?.id ?? null;
}

/** id -> ids of the nodes that take it as an input (its consumers), from `nodes`' inputs. */
export function consumersOf(nodes) {
  const out = new Map(nodes.map((n) => [n.id, []]));
  for (const n of nodes) for (const input of n.inputs ?? []) out.get(input)?.push(n.id);
  return out;
}

/** The ids reachable from `start` by `next(id)` (ids), `start` excluded. Iterative: a 50,000-node chain has no stack to spare. */
function reach(start, next) {
  const seen = new Set();
  const stack = [start];
  while (stack.length) {
    for (const id of next(stack.pop()) ?? []) {
      if (id === start || seen.has(id)) continue;
      seen.add(id);
      stack.push(id);
    }
  }
  return seen;
}

/** The ids of every node `id` depends on (its ancestors: inputs, their inputs, ...). */
export function ancestors(nodes, id) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  return reach(id, (k) => byId.get(k)?.inputs);
}

/** The ids of every node `id` feeds (its descendants: consumers, their consumers, ...). */
export function descendants(nodes, id) {
  const consumers = consumersOf(nodes);
  return reach(id, (k) => consumers.get(k));
}

/**
 * What "trace inputs" (`direction` "inputs") or "trace consumers" ("consumers") of node `id`
 * highlights: {nodes: Set of ids (the node's ancestors, or descendants; not the node
 * itself), edges: Set of edge ids (every edge of `edges` whose both ends are in the traced
 * set or the node: the paths between them)}.
 */
export function traceFrom(nodes, edges, id, direction) {
  const found = direction === "inputs" ? ancestors(nodes, id) : descendants(nodes, id);
  const inside = (k) => k === id || found.has(k);
  const traced = new Set(edges.filter((e) => inside(e.source) && inside(e.target)).map((e) => e.id));
  return { nodes: found, edges: traced };
}

// Each node's search keys, made once: a 100,000-node graph's 200,000 names and labels took
// a search a few hundred milliseconds to key at every keystroke.
const keysOf = new WeakMap();

/** The searchKey of `node`'s name and label (those that are strings), made once per node. */
export function searchKeysOf(node) {
  let keys = keysOf.get(node);
  if (!keys) {
    keys = [node.name, node.label].filter((text) => typeof text === "string").map(searchKey);
    keysOf.set(node, keys);
  }
  return keys;
}

/**
 * The nodes matching the search `query` by name or label, compared as searchKey gives them
 * (case, superscript digits, spaces and parentheses do not matter): exact matches
 * first, then those starting with it, then those containing it; in graph order within each.
 * At most `limit`. An empty query matches nothing. Returns [{node, rank (0 exact, 1 prefix,
 * 2 substring)}].
 */
export function searchNodes(nodes, query, { limit = 20 } = {}) {
  const q = searchKey(query);
  if (!q) return [];
  const rankOf = (n) => {
    let best = 3;
    for (const t of searchKeysOf(n)) {
      if (t === q) return 0;
      if (t.startsWith(q)) best = Math.min(best, 1);
      else if (t.includes(q)) best = Math.min(best, 2);
    }
    return best;
  };
  const found = [];
  for (const node of nodes) {
    const rank = rankOf(node);
    if (rank < 3) found.push({ node, rank });
  }
  // Array.prototype.sort is stable: graph order stays within a rank.
  return found.sort((a, b) => a.rank - b.rank).slice(0, limit);
}
