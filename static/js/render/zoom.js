// Pan and zoom over the graph with d3-zoom: drag to pan, wheel to zoom, and buttons for
// in / out / fit. The arithmetic lives in ../viewport.js and ../clearance.js; this shell
// applies it to the drawing. Positions inside the drawing never change; only this camera
// moves: on fit, on the user's gestures, and when a step would otherwise happen off screen
// (reveal). The svg reports data-scale, data-fitted ("auto": the automatic view, "whole": the
// Fit button's, "false": the user's own), data-camera ("moving" during a glide, else "still"),
// data-whole (all of the drawing in view, "true" or "false") and data-numbers ("hidden" under
// NUMBERS_FROM_PX, or in a narrow screen's automatic view under the readable floor: numbersFrom).

import * as d3 from "d3";
import { centredBox, union } from "../boxes.js";
import { autoScale, fitAround, followTransform, MARGIN, NUMBERS_SCALE, reaches, readableTransform, revealTransform, wholeScale, wholeTransform, ZOOM_LIMITS } from "../viewport.js";
import { cutsView, freeView, insetsDiffer, intoFree, reachRight, uncutView } from "../clearance.js";
import { withTags } from "../tags.js";
import { graphLook } from "../theme.js";
import { coverInsets, createCameraNote, markedBoxes, sameBoxes, stepNoteBox, watchCovers } from "./covers.js";
import { createNamer } from "./names.js";

const toD3 = ({ k, x, y }) => d3.zoomIdentity.translate(x, y).scale(k);

/**
 * The camera of `root` (an <svg> whose drawing sits in svg.camera). With `pinSize` the svg
 * is given its parent's size in pixels (kept up to date): an svg sized in percent is laid
 * out again, with all of its text, whenever anything beside it changes (the narration, the
 * step counter): 60 ms a step at 300 nodes. The parent must not take its size from the svg.
 * While `readableWhole()` (a narrow screen: render/touch.js) the whole view (Fit) keeps to
 * the readable scale. While `readableOverview()` (runs compared: the table takes the graph's
 * height) or `readableWhole()`, the automatic view's overviews (step 0, Done) zoom out no
 * further than the readable floor, and the camera's note says the rest is off screen.
 */
export function createZoom(root, { pinSize = false, readableWhole = () => false, readableOverview = () => false } = {}) {
  const svg = d3.select(root);
  let content = null; // the box of the drawing shown (layout units), or null
  let fitted = "auto"; // "auto" | "whole" | false once the user has panned or zoomed
  let focus = null; // the box the current step needs in view (reveal), or null
  let home = null; // the output's box: in view on a new drawing
  let steps = null; // what each step needs on screen (boxes.js stepBoxes), or null
  let boxes = null; // the nodes' boxes, none cut at the top by the automatic view (clearance.js nodeBoxes), or null
  let goal = null; // where the camera's glide goes ({k, x, y}), or null after the user moved it
  let pinned = null; // the box of the node whose detail panel is open and its neighbours (boxes.js pinBox), or null
  let names = null; // what an overview may name (names.js nameBoxes), or null
  const namer = createNamer(root); // the overview's names, drawn for the camera's scale
  let tagged = []; // the boxes of the nodes with a mark over them (tags.js), as last read
  let marked = null; // {content, steps, boxes} raised to hold those marks, made when first needed
  // What the automatic view keeps in view: the step's focus, or the pinned node in place of an
  // overview (step 0, Done) that the free part beside the detail panel shows only under the
  // readable scale: zoomed out to show all, the clicked node read at 7 px on a 1024x768
  // projector (issue 14 §5).
  const aim = () => {
    if (!pinned || (focus && !focus.whole)) return withTags(focus, tagged);
    return withTags(content && wholeScale(content, free()) >= autoScale(scaling()).floor ? focus : pinned, tagged);
  };
  // What the automatic view frames: the drawing, the steps' boxes and the nodes', each raised
  // to hold the marks over its nodes (tags.js: c's Δ was cut at the graph's top).
  const framed = () => (marked ??= {
    content: withTags(content, tagged), steps: steps?.map((b) => withTags(b, tagged)) ?? null,
    boxes: boxes?.map((b) => withTags(b, tagged)) ?? null, home: withTags(home, tagged),
  });
  // The marks drawn now (render/diff.js and dead.js say when they change: a "marks" event);
  // true when they changed. Read from the nodes' data, never measured (no forced layout).
  function readTags() {
    const next = boxes ? markedBoxes(root) : [];
    if (sameBoxes(next, tagged)) return false;
    tagged = next;
    marked = null;
    return true;
  }
  // The least scale at which the boxes print their numbers: NUMBERS_SCALE, but the readable
  // floor (14 px) in a narrow screen's automatic view, whose step zoomed out to show both of
  // its ends (`reach`) otherwise printed them at 10.3 px (the tanh example's step 5 at 390x844);
  // the line of the step's numbers reads them there (render/stepnumbers.js).
  // An overview (step 0, Done) is the exception: it shows the leaves and the output whole
  // down to NUMBERS_SCALE (framing), numbers drawn (a 390x844 phone's Done: 11 px).
  const numbersFrom = () => (readableWhole() && fitted === "auto" && !(focus ?? home)?.overview ? autoScale(scaling()).floor : NUMBERS_SCALE);
  // Whether the camera frames the pinned node (and its neighbours) in place of an overview
  // (zoomed out for them as `reach` says), its note not said (at 1024x768 on a projector it
  // stood over four nodes' "max" rows beside W1's panel: a review of issue 14).
  const framesPin = () => Boolean(pinned) && aim() === pinned;
  // How long the camera glides to follow a step (ms). Every frame of a glide repaints the
  // whole drawing (the transform of everything changes): a big graph's camera jumps.
  let glide = 300;

  const behavior = d3.zoom()
    // The svg's size as kept below: d3's default reads it from the DOM (a forced layout).
    .extent(() => { const { width, height } = viewSize(); return [[0, 0], [width, height]]; })
    // Glides pan in a straight line: d3's default (interpolateZoom) zooms out and back in on
    // the way, and every change of scale makes the browser lay out all of the graph's text
    // again, each frame (40 ms a frame at 300 nodes); a pan at one scale costs nothing.
    .interpolate(d3.interpolate)
    .scaleExtent([ZOOM_LIMITS.min, ZOOM_LIMITS.max])
    .clickDistance(4) // a click on a node that wobbles a little is still a click
    // One finger is the swipe that steps (render/touch.js); two pinch and pan. d3 takes up
    // both fingers when the second lands (it reads event.touches), so a pinch still zooms.
    .filter((event) => (!event.ctrlKey || event.type === "wheel") && !event.button
      && !(event.type === "touchstart" && event.touches.length < 2))
    .on("zoom", (event) => {
      const { k, x, y } = event.transform;
      // A CSS transform of an HTML element (render/graph.js cameraFrame says why)
      const camera = root.querySelector("div.camera");
      if (camera) camera.style.transform = `translate(${x}px, ${y}px) scale(${k})`;
      root.dataset.scale = event.transform.k.toFixed(4);
      if (event.sourceEvent) {
        goal = null;
        setFitted(false);
      }
      // numbers too small to read are not drawn (set only when it changes: a restyle of
      // every box); render/stepnumbers.js then reads the step's in a line
      const numbers = k >= numbersFrom() - 1e-9 ? "shown" : "hidden";
      if (root.dataset.numbers !== numbers) root.dataset.numbers = numbers;
      // and its names are drawn at a readable size instead of its small text (names.js)
      namer.at(k, numbers === "hidden" ? names : null, scaling().textScale);
      markWhole(goal ?? { k, x, y });
      // The minimap (render/navigate.js) follows the camera.
      root.dispatchEvent(new CustomEvent("camera", { detail: event.transform }));
    });
  svg.call(behavior).on("dblclick.zoom", null);
  root.dataset.camera = "still";

  function setFitted(value) {
    fitted = value;
    root.dataset.fitted = String(value);
  }

  // The svg's size, kept by the ResizeObserver below: reading clientWidth at every step
  // would make the browser lay out the whole drawing there and then (a forced layout).
  let size = null;
  const viewSize = () => (size ??= { width: root.clientWidth, height: root.clientHeight });
  // The panels over the graph (covers.js COVERS: the detail panel at its right, the trace
  // buttons at its top left): the camera keeps the drawing out from under them, as if the svg
  // ended at their edge (issue 14: at 1024x768 the detail panel hid Y and L, the trace bar W's
  // title). `inset` ({left, top, right, bottom, tops}, px: clearance.js coverOf) is measured
  // when first needed after a resize, and kept up to date by watchCovers below.
  let inset = null;
  const insetNow = () => (inset ??= coverInsets(root));
  const free = () => freeView(viewSize(), insetNow());
  const toFree = (t) => intoFree(t, insetNow());
  const fromFree = (t) => intoFree(t, insetNow(), true);
  // The page's font scale and the theme's text floor (theme.js graphLook), read once per look:
  // getComputedStyle at every step would make the browser recompute styles there and then.
  let look = null;
  const scaling = () => (look ??= graphLook(root));
  // The automatic view's options (viewport.js fitAround): on a narrow screen its overviews
  // (step 0, Done) show the leaves and the output whole down to NUMBERS_SCALE, numbers still
  // drawn (at 0.31 a phone printed the names at 7 px, numbers hidden; held at the readable
  // floor an 820x1180 tablet's Done cut a and b, the walk's answer, at its left edge: issue
  // 17 §2; the graph is laid out top to bottom there, layout.js `upright`). Beside a
  // comparison of runs the readable floor (issue 14): its overviews were at 0.56, the names
  // at 12 px and the numbers at 10 px on a 1024x768 projector. How far a step zooms out to
  // show both of its ends, and a title, is `reach` (viewport.js reaches).
  const framing = () => ({
    ...scaling(), steps: framed().steps,
    overview: readableWhole() ? narrowOverview() : readableOverview() ? autoScale(scaling()).floor : undefined,
    reach: reach(focus).ends,
  });
  // ... while all of the drawing fits there (no note over it then); a bigger one keeps the
  // readable floor and shows its output (the XOR net's Train embed on a phone: zoomed out
  // to its leaves, the note stood over b2 and h @ W2.T).
  const narrowOverview = () => (wholeScale(framed().content, free()) >= NUMBERS_SCALE ? NUMBERS_SCALE : autoScale(scaling()).floor);
  // How far the automatic view zooms out now, `box` the moment's (viewport.js reaches).
  const reach = (box) => reaches(autoScale(scaling()), { phone: readableWhole(), pinned: framesPin(), asked: Boolean(box?.asked), marked: tagged.length > 0 });
  // A new theme or text size changes the automatic scale: a fitted view fits again (the
  // graph area's size may not change, so the ResizeObserver below need not fire).
  new MutationObserver(() => {
    const before = look;
    look = null;
    namer.stale(); // the names' size follows the text size
    if (!content || !fitted || !before) return;
    const now = scaling();
    if (now.textScale !== before.textScale || now.minText !== before.minText) fit({ whole: fitted === "whole" });
  }).observe(document.documentElement, { attributes: true });

  // At step 0 and Done (an overview: boxes.js overviewBox) the camera shows the whole graph,
  // unless that takes a scale under OVERVIEW_SCALE: then its note says so over the graph.
  const note = createCameraNote(root, readableWhole);

  function markWhole(shown) {
    const view = free(); // a part under a panel is not in view
    const t = toFree(shown);
    const inside = (lo, hi, shift, length) => t.k * lo + shift >= -1 && t.k * hi + shift <= length + 1;
    const shows = (b) => inside(b.x0, b.x1, t.x, view.width) && inside(b.y0, b.y1, t.y, view.height);
    const whole = Boolean(content) && shows(content);
    root.dataset.whole = String(whole);
    // Beside a question, the step's `+=` note that cannot be whole with the asked node (the
    // camera shows the asked node then: reveal) gives way rather than being cut at the
    // edge: it is the step before the question's, and its node's box shows the sum it made
    // (the matmul quiz at 1024x768: W̄ asked, X̄'s note hung 60-100 px under the graph area).
    const stepNote = focus?.asked ? stepNoteBox(root) : null;
    const aside = Boolean(stepNote) && !shows(stepNote);
    if ((root.dataset.note === "aside") !== aside) {
      if (aside) root.dataset.note = "aside";
      else delete root.dataset.note;
    }
    // Said at an overview of the automatic view only. Gone, it frees its band; nothing moves
    // (the panels' observer would follow the step again, undoing a pinch).
    if (note.say(!whole && saysNote()) && inset) inset = coverInsets(root);
  }

  // The note is said at an overview of the automatic view only (markWhole): a view that is
  // none hides it before the camera places the drawing, which then has the note's band too.
  // Hidden only once the camera had moved, it left the step placed for a view 29 px short
  // (mlp-classifier's step 14 after step 0's note, Compare runs on, 1280x800 on a projector:
  // the `+=` note cut at the graph's foot).
  const saysNote = () => Boolean((focus ?? home)?.overview) && fitted === "auto" && !framesPin();
  function noteGoes() {
    if (!note.shown || saysNote()) return;
    note.say(false);
    if (inset) inset = coverInsets(root);
  }

  // The automatic view `place(options)` gives (fitAround or followTransform), its top edge
  // clear of titles and marks (clearTop); where no place at that scale is, zoomed out for that
  // moment until one is, as far as `reach(...).titles` lets it (the matmul quiz at 1024x768 on
  // a projector: G's title cut by 12 px at 0.80, whole at 0.78). A walk's steps keep one scale
  // (viewScale) otherwise: the room's eyes would follow the zoom, not the step.
  function uncut(place, view, focusBox) {
    const least = !focusBox || focusBox.overview ? null : reach(focusBox).titles;
    // the detail panel at the right (an inset there) cuts no box's title row either
    const clear = { ...view, panelRight: insetNow().side ?? null };
    const t = uncutView(place, framed().boxes, clear, focusBox, least);
    // A question's focus is the asked node joined to the step's note (reveal's `add`): where no
    // place keeps every title whole with both, the asked node alone, its note set aside
    // (markWhole), rather than a title cut at the top (the matmul quiz's W̄[0,0] at 1280x800 on
    // a projector once X̄'s first note took two lines: G's title cut by 22 px)
    if (!focusBox?.asked || !focusBox.core || !cutsView(t, framed().boxes, clear, focusBox)) return t;
    return uncutView((o) => place({ ...o, focus: focusBox.core }), framed().boxes, clear, focusBox.core, least);
  }

  // data-camera is "moving" while the camera glides, so tests can wait for "still".
  function apply(t, duration = 0) {
    svg.interrupt("camera");
    goal = { k: t.k, x: t.x, y: t.y };
    // A glide interrupted before its first frame is "cancel"led (d3-transition 3), not
    // "interrupt"ed; and a jump ends any glide: either left data-camera "moving" for good
    // (after Train at 1280x800 a glide then a jump: tests waiting for "still" timed out).
    if (!duration) {
      root.dataset.camera = "still";
      return svg.call(behavior.transform, toD3(t));
    }
    root.dataset.camera = "moving";
    svg.transition("camera").duration(duration)
      .on("end interrupt cancel", () => { root.dataset.camera = "still"; })
      .call(behavior.transform, toD3(t));
  }

  /**
   * Fit the drawing: the automatic view (the whole graph if it fits at a readable scale,
   * else the part around the current step), or with `whole` all of it at any scale (while
   * `readableWhole()`, a narrow screen, no smaller than the readable scale: viewport.js).
   */
  function fit({ whole = false, duration = 0 } = {}) {
    if (!content) return;
    setFitted(whole ? "whole" : "auto");
    noteGoes();
    const view = free();
    const auto = autoScale(scaling());
    if (!whole) {
      const { content: drawn, home: output } = framed();
      const place = ({ focus: only, ...o }) => fitAround(drawn, view, only ?? aim(), { ...framing(), home: output, ...o });
      return apply(fromFree(uncut(place, view, aim() ?? output)), duration);
    }
    // a phone's Fit: all of it only while its numbers read (14 px), else the step at that size
    apply(fromFree(readableWhole() ? readableTransform(content, view, aim() ?? home, auto) : wholeTransform(content, view, { max: auto.max })), duration);
  }

  /**
   * Bring the focus into view. From where a glide is going (not from the middle of it: quick
   * steps would leave the camera halfway). The automatic view also re-places each axis the
   * graph fits along (followTransform); the user's own view only pans, at its scale.
   */
  function follow(duration) {
    // No step to show (step 0) in the automatic view: its opening overview (home), as fit
    // places it. followTransform has no focus to reveal then: at another scale it placed the
    // drawing's left end, the output far off (Train's dead tag at step 0 on a projector, when
    // its "marks" came after the graph area's refit: an empty graph area under the note).
    if (fitted === "auto" && !aim()) return fit({ duration });
    noteGoes();
    const { k, x, y } = goal ?? d3.zoomTransform(root);
    const view = free();
    const now = toFree({ k, x, y });
    const next = fromFree(fitted === "auto"
      ? uncut(({ focus: only, ...o }) => followTransform(now, framed().content, view, only ?? aim(), { ...framing(), ...o }), view, aim())
      : revealTransform(now, aim(), view, framing()));
    const moved = next && (Math.abs(next.k - k) > 1e-6 || Math.abs(next.x - x) > 0.5 || Math.abs(next.y - y) > 0.5);
    if (moved) apply(next, duration);
    else markWhole({ k, x, y }); // a step that needs no move may still be an overview (Done)
  }

  // A mark over a node added or taken off (render/diff.js, dead.js): the automatic view takes
  // it in (Compare's Δ are drawn once both runs are traced, after the camera placed the graph).
  root.addEventListener("marks", () => {
    if (content && readTags() && fitted === "auto") follow(glide);
  });

  // A node reached by Tab comes into view: the browser cannot scroll a camera, and the
  // graph's frame clips (overflow: clip) rather than scrolling to it.
  root.addEventListener("focusin", (event) => {
    const d = event.target.closest?.("g.node")?.__data__; // the layout node d3 bound
    if (!d || !content) return;
    const { k, x, y } = d3.zoomTransform(root);
    const next = fromFree(revealTransform(toFree({ k, x, y }), centredBox(d), free()));
    if (next) apply(next, 200);
  });

  // The svg changes size with the window and with "Hide program": refit in the same mode,
  // or keep the user's own view; either way the current step stays on screen.
  const frame = pinSize ? root.parentNode : null;
  new ResizeObserver(() => {
    if (frame) {
      root.style.width = `${frame.clientWidth}px`;
      root.style.height = `${frame.clientHeight}px`;
      size = { width: frame.clientWidth, height: frame.clientHeight };
    } else size = { width: root.clientWidth, height: root.clientHeight }; // laid out already: no cost
    look = null;
    inset = null;
    if (!content || root.clientWidth === 0) return;
    if (fitted) fit({ whole: fitted === "whole" });
    else follow(0);
  }).observe(frame ?? root);

  // A panel shown, hidden or resized over the graph: the camera moves the drawing clear of
  // it (the automatic view refits; the user's own view pans the step out from under it).
  watchCovers(root, () => {
    if (!inset) return; // not measured since the last resize: the next fit measures it
    const now = coverInsets(root);
    if (!insetsDiffer(now, inset)) return;
    inset = now;
    if (content && fitted) fit({ whole: fitted === "whole", duration: glide });
    else if (content) follow(glide);
  });

  return {
    /**
     * A new drawing of `box` (contentBox): zoom limits for it, and the fitted view, with
     * `output` (the output node's box, or null) in view. `glide`: how long the camera
     * takes to follow a step, ms (0: it jumps); `steps`: what each step needs on screen
     * (boxes.js stepBoxes), so the automatic scale shows every step whole; `nodes`: the
     * nodes' boxes (clearance.js nodeBoxes), whose titles the automatic view keeps whole;
     * `named`: what an overview names at a readable size (names.js nameBoxes), or null.
     */
    show(box, output = null, { glide: ms = 300, steps: sizes = null, nodes = null, named = null } = {}) {
      names = named;
      namer.stale(); // a new drawing: its names are drawn at the next move
      glide = ms;
      steps = sizes;
      boxes = nodes;
      content = box;
      marked = null;
      readTags();
      focus = null;
      pinned = null;
      home = output;
      const whole = wholeScale(box, viewSize());
      behavior.scaleExtent([Math.min(ZOOM_LIMITS.min, 0.8 * whole), ZOOM_LIMITS.max]);
      fit();
    },
    /** No drawing: nothing to fit. */
    clear() {
      content = null;
      names = null;
      namer.off();
      note.say(false);
      delete root.dataset.scale;
      root.dispatchEvent(new CustomEvent("camera", { detail: null }));
    },
    fit,
    /** The automatic view's scale limits now {min, max} (viewport.js autoScale). */
    limits: () => autoScale(scaling()),
    /** Fit again in the same mode (after the font scale changed); the user's own view stays. */
    refit() {
      if (content && fitted) fit({ whole: fitted === "whole" });
    },
    /** Zoom by `factor` about the centre of the view; at once, so quick clicks add up. */
    zoomBy(factor) {
      if (!content) return;
      goal = null;
      setFitted(false);
      svg.interrupt("camera");
      svg.call(behavior.scaleBy, factor);
    },
    /**
     * How wide (px) the graph area must stay beside a panel to frame `box` (layout units:
     * boxes.js pinBox), and the nodes shown beside it that cross its right edge (clearance.js
     * reachRight), at the least scale that prints its numbers (render/detail.js keeps the
     * detail panel from widening past it); 0 for no box.
     */
    roomFor(box) {
      if (!box) return 0;
      const right = content ? reachRight(box, framed().boxes, free().height, NUMBERS_SCALE) : box.x1;
      return (right - box.x0) * NUMBERS_SCALE + 2 * MARGIN + 8; // 8: rounding's slack
    },
    /** The camera now {k, x, y} and the svg's size {width, height} (px). */
    transform: () => { const { k, x, y } = d3.zoomTransform(root); return { k, x, y }; },
    viewSize,
    /**
     * Move the camera to `t` ({k, x, y}; navigate.js: search, the minimap) over `duration`
     * ms: the user's own view from then on, as after a pan.
     */
    moveTo(t, duration = 0) {
      if (!content) return;
      setFitted(false);
      apply(t, duration);
    },
    /**
     * The node whose detail panel is open: `box` (boxes.js pinBox: it and its neighbours)
     * is kept in view in place of an overview, at the automatic scale; null when it closes.
     */
    pin(box) {
      pinned = box;
      if (content && fitted) fit({ whole: fitted === "whole", duration: glide });
      else if (content) follow(glide);
    },
    /**
     * Pan (at the same scale) so `box` (layout units) is in view, now and after a resize.
     * With `add`, `box` joins what is in view already (the quiz's asked node beside the step's
     * `+=` note, which its camera left cut at the graph's edge: issue 14), and is shown
     * alone when both do not fit (it is the joined box's core, boxes.js stepBox).
     */
    reveal(box, { add = false } = {}) {
      focus = add && focus && box ? { ...union(focus, box), core: box, asked: true } : box;
      // no step to show (step 0): the automatic view keeps its opening overview (home)
      if (content && !box && fitted === "auto") fit({ duration: glide });
      else if (content) follow(glide);
    },
  };
}
