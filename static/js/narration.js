// The narration line: the rule of the current event with its numbers.
// No DOM. The page never recomputes math: an accumulate event carries its own narration
// from the engine, and every other line only reprints numbers the event carries.

import { bugDoneText } from "./bugs.js";
import { formatShape, formatValue, isTensor, shapeText } from "./format.js";

/** "axis 0" or "axes 0, 1". */
export function axesText(axes) {
  return axes.length === 1 ? `axis ${axes[0]}` : `axes ${axes.join(", ")}`;
}

function labelOf(nodesById, id) {
  return nodesById[id]?.label ?? id;
}

const NARRATE = {
  // A recorded training iteration (engine/train): the engine narrates its own two steps.
  zero_grad: (ev) => ev.narration ?? "zero_grad: every parameter's gradient is set to 0 before the backward pass.",
  update: (ev) => ev.narration ?? `${ev.name} -= lr · ${ev.name}\u0304`,
  evaluate(ev, nodesById) {
    const node = nodesById[ev.node];
    const value = formatValue(ev.value);
    if (!node) return `${ev.node} = ${value}`;
    if (node.role === "const") return `constant ${node.label} = ${value}`;
    if (node.role === "leaf") return `input ${node.label} = ${value}`;
    return `${node.formula} = ${value}`; // "e = a * b = -0.5", "w1 * x = 1"
  },
  seed(ev, nodesById) {
    if (ev.reset) return ev.narration; // the bug lab's second pass: the engine says why
    const L = labelOf(nodesById, ev.node);
    const symbol = nodesById[ev.node]?.adjoint_symbol ?? `∂${L}/∂${L}`;
    const one = isTensor(ev.adjoint) ? `ones(${formatShape(ev.adjoint.shape)})` : "1";
    return `${symbol} = ${one} (d${L}/d${L}), the backward pass starts at the output`;
  },
  unbroadcast(ev, nodesById) {
    const x = labelOf(nodesById, ev.input);
    return (
      `${x} was broadcast from ${shapeText(ev.to_shape)} to ${shapeText(ev.from_shape)}, ` +
      `so its gradient is summed over ${axesText(ev.axes)}: ` +
      `${shapeText(ev.from_shape)} → ${shapeText(ev.to_shape)}`
    );
  },
  accumulate(ev) {
    return ev.narration;
  },
  tangent(ev) {
    return ev.narration; // forward mode: "e = a * b, so ė = ȧ·b + a·ḃ = ... ; e = -0.5 - 0.5ε"
  },
  recompute(ev) {
    return ev.narration; // "checkpoint: recompute h = tanh(x @ W1) (the forward pass did not keep it)"
  },
  done(ev, nodesById, context = {}) {
    const L = outputLabel(ev.output, nodesById);
    // A tensor output is seeded with ones: its "gradient" is that of sum(L) (issue 9 review).
    const vector = isTensor(ev.output?.value);
    const grads = gradsText(vector ? `(sum ${L})` : L, ev.grads).join(",  ");
    const seeded = vector ? ` (${L} seeded with ones, so the gradient of sum ${L})` : "";
    if (ev.jvp !== undefined) { // forward mode: the output's tangent, then reverse mode's gradients
      const along = context.direction ?? ev.passes?.direction;
      const dir = along && along !== "the given tangents" ? ` along ${along}` : "";
      return `Done. The tangent of ${L}${dir} (the Jacobian-vector product) = ${formatValue(ev.jvp)}. `
        + `Reverse mode${seeded}: ${grads}`;
    }
    const bug = bugDoneText(ev.bugs); // the bug lab: wrong on purpose, said first
    // hvp mode: the walk's leaf adjoints are ∂s/∂x with s = ∇L·v, i.e. H v (context.hvp: the body's)
    const hvp = Object.entries(context.hvp ?? {}).map(([name, x]) => `(H v)_${name} = ∂s/∂${name} = ${formatValue(x)}`);
    if (hvp.length) return bug ? `${bug} Done. ${hvp.join(",  ")}` : `Done. ${hvp.join(",  ")}`;
    // an underflow on the way (first_non_finite kind "underflow"): these digits are not exact
    const under = ev.first_non_finite?.kind === "underflow"
      ? ` (not exact: a number underflowed, ${ev.first_non_finite.why.replace(/^underflow: /, "")})` : "";
    const done = grads ? `Done.${seeded ? ` Reverse mode${seeded}:` : ""} ${grads}${under}` : "Done.";
    return bug ? `${bug} ${done}` : done;
  },
};

/** The output's label ("x⁽²⁰⁰⁰⁾" rather than the name "x", which a leaf may share). */
function outputLabel(output, nodesById) {
  return nodesById?.[output?.node]?.label ?? output?.name ?? "L";
}

/** ["dL/da = 0.7864", ...] for a done event's gradients (leaf name -> value). */
function gradsText(L, grads) {
  return Object.entries(grads || {}).map(([name, g]) => `d${L}/d${name} = ${formatValue(g)}`);
}

// Whether a tensor value is all zeros (its summary's least and greatest both 0).
const isZeros = (v) => isTensor(v) && v.summary?.min === 0 && v.summary?.max === 0;

/**
 * The short note shown next to the node that `event` changes ({id, lines}), or null:
 * ["+= 1.5729", "(0 → 1.5729)"] for an accumulate event, the summed axes for an unbroadcast.
 * Two short lines keep it narrower than a box, so it stays in its node's column; a tensor's
 * summaries take three ("+= 4×4 matrix · min …", "was 4×4 matrix · …", "now 4×4 matrix · …").
 */
export function calloutOf(event) {
  if (event?.kind === "accumulate" && event.bug === "overwrite") {
    // The bug lab's `=` where `+=` belongs: the adjoint is replaced, its old value lost.
    const before = formatValue(event.adjoint_before);
    return { id: event.input, lines: [`= ${formatValue(event.contribution)}`, `(${before} lost)`] };
  }
  if (event?.kind === "accumulate") {
    const before = formatValue(event.adjoint_before);
    const after = formatValue(event.adjoint_after);
    const change = `(${before} → ${after})`;
    // A tensor's summaries side by side made a note as wide as three boxes (it covered its
    // neighbours): then the old and the new adjoint each get a line.
    const plus = `+= ${formatValue(event.contribution)}`;
    // A tensor's first gradient (zeros before it): "was" all zeros and "now" the `+=` line
    // again made three lines of one fact, and the note pushed the step past a 1024x768
    // projector's graph band (mlp-classifier's step 14: its numbers at 13 px, issue 14 §5)
    if (change.length > 32 && isZeros(event.adjoint_before)) return { id: event.input, lines: [plus, "(was 0)"] };
    const lines = change.length <= 32 ? [change] : [`was ${before}`, `now ${after}`];
    return { id: event.input, lines: [plus, ...lines] };
  }
  if (event?.kind === "unbroadcast") {
    const shapes = `${shapeText(event.from_shape)} → ${shapeText(event.to_shape)}`;
    return { id: event.input, lines: [`Σ over ${axesText(event.axes)}`, shapes] };
  }
  return null;
}

/**
 * The narration for the view's current event (null before the first step). `context`:
 * {direction} names a forward walk's tangent at Done ("∂/∂W[1, 1]"; modes.js directionText),
 * else the done event's `passes.direction` is used; {hvp} (the body's `hvp`, leaf -> H v) is
 * what an hvp walk's Done says; {touch} (a finger for a pointer: render/touch.js isTouch) says
 * how to step with one, not with a key a phone has not (issue 17 §2: "Step forward (→)").
 */
export function narrate(event, nodesById, context = {}) {
  if (!event) return `${context.touch ? "Swipe or tap Next" : "Step forward (→)"} to run the forward pass, one node at a time.`;
  const say = NARRATE[event.kind];
  return say ? say(event, nodesById, context) : event.kind;
}

/**
 * What the page says instead of a graph it does not draw (`plan` from layout.planLayout,
 * `trace` the server's answer): why, and the results, which were computed all the same.
 */
export function undrawnMessage(plan, trace, { maxGrads = 6 } = {}) {
  const n = (x) => x.toLocaleString("en-US");
  const seconds = (ms) => `${n(Math.max(1, Math.round(ms / 1000)))} s`;
  const why = plan.reason === "too_large"
    ? `This graph has ${n(plan.nodes)} nodes; laying it out would take about ${seconds(plan.cost.ms)}, `
      + `past the page's budget of ${seconds(plan.budget)}, so it opens as an overview.`
    : plan.reason === "too_deep"
      ? `This graph has ${n(plan.nodes)} nodes in ${n(plan.cost.depth)} ranks; the layout handles at most `
        + `${n(plan.maxDepth)} ranks, so it opens as an overview.`
      : `The layout of this graph (${n(plan.nodes)} nodes) failed (${plan.message}), so it is not drawn.`;
  const output = trace.output;
  const L = outputLabel(output, Object.fromEntries(trace.graph.nodes.map((d) => [d.id, d])));
  const grads = gradsText(L, trace.grads);
  const more = grads.length > maxGrads ? `, and ${n(grads.length - maxGrads)} more` : "";
  const results = [
    output ? `output ${L} = ${formatValue(output.value)}` : null,
    grads.length ? grads.slice(0, maxGrads).join(", ") + more : null,
  ].filter(Boolean).join("; ");
  const computed = results ? `The trace was computed: ${results}.` : "The trace was computed.";
  const steps = `The player and the narration below still step through all ${n(trace.events.length)} events.`;
  return `${why} ${computed} ${steps}`;
}
