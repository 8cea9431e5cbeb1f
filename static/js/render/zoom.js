// Pan and zoom over the graph with d3-zoom: drag to pan, wheel to zoom, and buttons for
// in / out / fit. The arithmetic lives in ../viewport.js; this shell applies it to the
// <svg>'s `g.viewport` and reports the scale in data-scale. Positions inside the drawing
// never change; only this camera moves: on fit, on the user's gestures, and when a step
// would otherwise happen off screen (reveal). The svg reports data-scale, data-fitted and
// data-camera ("moving" during a glide, else "still").

import * as d3 from "d3";
import { fitTransform, revealTransform, wholeScale, ZOOM_LIMITS } from "../viewport.js";

const toD3 = ({ k, x, y }) => d3.zoomIdentity.translate(x, y).scale(k);

/** The camera of `root` (an <svg> whose drawing sits in g.viewport). */
export function createZoom(root) {
  const svg = d3.select(root);
  let content = null; // {width, height} of the layout shown, or null
  let fitted = true; // false once the user has panned or zoomed: a resize then keeps their view

  const behavior = d3.zoom()
    .scaleExtent([ZOOM_LIMITS.min, ZOOM_LIMITS.max])
    .clickDistance(4) // a click on a node that wobbles a little is still a click
    .on("zoom", (event) => {
      svg.select("g.viewport").attr("transform", event.transform);
      root.dataset.scale = event.transform.k.toFixed(4);
      if (event.sourceEvent) setFitted(false);
    });
  svg.call(behavior).on("dblclick.zoom", null);
  root.dataset.camera = "still";

  function setFitted(value) {
    fitted = value;
    root.dataset.fitted = String(value);
  }

  const viewSize = () => ({ width: root.clientWidth, height: root.clientHeight });

  // data-camera is "moving" while the camera glides, so tests can wait for "still".
  function apply(t, duration = 0) {
    svg.interrupt("camera");
    if (!duration) return svg.call(behavior.transform, toD3(t));
    root.dataset.camera = "moving";
    svg.transition("camera").duration(duration)
      .on("end interrupt", () => { root.dataset.camera = "still"; })
      .call(behavior.transform, toD3(t));
  }

  /** The automatic view: the whole graph if it fits at a readable scale, else its start. */
  function fit({ duration = 0 } = {}) {
    if (!content) return;
    setFitted(true);
    apply(fitTransform(content, viewSize()), duration);
  }

  // The svg changes size with the window and with "Hide program": refit unless the user
  // has chosen a view of their own.
  new ResizeObserver(() => {
    if (content && fitted && root.clientWidth > 0) fit();
  }).observe(root);

  return {
    /** A new drawing of `size` ({width, height}): zoom limits for it, and the fitted view. */
    show(size) {
      content = size;
      const whole = wholeScale(size, viewSize());
      behavior.scaleExtent([Math.min(ZOOM_LIMITS.min, 0.8 * whole), ZOOM_LIMITS.max]);
      fit();
    },
    /** No drawing: nothing to fit. */
    clear() {
      content = null;
      delete root.dataset.scale;
    },
    fit,
    /** Zoom by `factor` about the centre of the view; at once, so quick clicks add up. */
    zoomBy(factor) {
      if (!content) return;
      setFitted(false);
      svg.interrupt("camera");
      svg.call(behavior.scaleBy, factor);
    },
    /** Pan (at the same scale) so `box` (layout units, padded by `pad`) is in view. */
    reveal(box, pad = 0) {
      if (!content) return;
      const { k, x, y } = d3.zoomTransform(root);
      const next = revealTransform({ k, x, y }, box, viewSize(), pad);
      if (next) apply(next, 300);
    },
  };
}
