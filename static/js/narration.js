// The narration line: the rule of the current event with its numbers.
// No DOM. The page never recomputes math: an accumulate event carries its own narration
// from the engine, and every other line only reprints numbers the event carries.

import { formatNumber, formatShape, formatValue, isTensor } from "./format.js";

const BAR = "\u0304"; // combining macron: "a" + BAR reads as a-bar

/** "ā" for a one-letter label; a bar over the last letter of "w1" misleads, so "grad w1". */
export function barred(label) {
  return [...label].length === 1 ? label + BAR : `grad ${label}`;
}

/** "axis 0" or "axes 0, 1". */
export function axesText(axes) {
  return axes.length === 1 ? `axis ${axes[0]}` : `axes ${axes.join(", ")}`;
}

function labelOf(nodesById, id) {
  return nodesById[id]?.label ?? id;
}

const NARRATE = {
  evaluate(ev, nodesById) {
    const node = nodesById[ev.node];
    const value = formatValue(ev.value);
    if (!node) return `${ev.node} = ${value}`;
    if (node.role === "const") return `constant ${node.label} = ${value}`;
    if (node.role === "leaf") return `input ${node.label} = ${value}`;
    return `${node.formula} = ${value}`; // "e = a * b = -0.5", "w1 * x = 1"
  },
  seed(ev, nodesById) {
    const L = labelOf(nodesById, ev.node);
    const one = isTensor(ev.adjoint) ? `ones(${formatShape(ev.adjoint.shape)})` : "1";
    return `${barred(L)} = ${one} (d${L}/d${L}), the backward pass starts at the output`;
  },
  unbroadcast(ev, nodesById) {
    const x = labelOf(nodesById, ev.input);
    return (
      `${x} was broadcast from ${formatShape(ev.to_shape)} to ${formatShape(ev.from_shape)}, ` +
      `so its gradient is summed over ${axesText(ev.axes)}: ` +
      `${formatShape(ev.from_shape)} → ${formatShape(ev.to_shape)}`
    );
  },
  accumulate(ev) {
    return ev.narration;
  },
  done(ev) {
    const L = ev.output?.name ?? "L";
    const grads = Object.entries(ev.grads || {})
      .map(([name, g]) => `d${L}/d${name} = ${formatValue(g)}`)
      .join(",  ");
    return grads ? `Done. ${grads}` : "Done.";
  },
};

/** The narration for the view's current event (null before the first step). */
export function narrate(event, nodesById) {
  if (!event) return "Step forward (→) to run the forward pass, one node at a time.";
  const say = NARRATE[event.kind];
  return say ? say(event, nodesById) : event.kind;
}
