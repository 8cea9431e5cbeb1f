// Work cut in slices (issue 8, "never frozen"): a long computation is written once as a
// generator that `yield`s every few thousand items; `finish` runs it to its end at once (node
// tests, small graphs, the embed), `runSliced` runs it a slice of about `budget` ms at a time
// and lets the page have a turn between slices, so no main-thread task grows with the graph.
// No DOM.

/** Run the generator `steps` to its end in this task; its return value. */
export function finish(steps) {
  for (;;) {
    const { done, value } = steps.next();
    if (done) return value;
  }
}

// A turn for the page is a new task posted on a MessageChannel: unlike setTimeout it is not
// clamped to 4 ms when turns follow each other, and unlike scheduler.yield() it does not go
// before the page's other tasks (the layout worker's answer, timers), which would wait until
// the whole stream had been taken in.
let channel = null;
const waiting = [];

/** A turn for the page: resolves in a task of its own, after what the page has queued. */
export function yieldToPage() {
  if (typeof MessageChannel !== "function") return new Promise((resolve) => setTimeout(resolve, 0));
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => {
      waiting.shift()?.();
      if (!waiting.length) channel.port1.unref?.(); // Node (tests): idle, it keeps nothing alive
    };
  }
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port1.ref?.(); // Node: alive while a turn is awaited (unref'd, the loop could end first)
    channel.port2.postMessage(null);
  });
}

/** An Error named "AbortError", as fetch's: the work was cancelled. */
export function abortError() {
  const error = new Error("the work was cancelled");
  error.name = "AbortError";
  return error;
}

/**
 * Run the generator `steps` to its end, about `budget` ms at a time, awaiting `pause()`
 * between slices. Resolves with its return value; rejects with an AbortError once
 * `cancelled()` is true at a pause (the generator is closed).
 */
export async function runSliced(steps, { budget = 25, pause = yieldToPage, cancelled = () => false } = {}) {
  let since = performance.now();
  for (;;) {
    const { done, value } = steps.next();
    if (done) return value;
    if (performance.now() - since < budget) continue;
    await pause();
    if (cancelled()) {
      steps.return();
      throw abortError();
    }
    since = performance.now();
  }
}
