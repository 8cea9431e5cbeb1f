// A step range as a video, for slide software that cannot show an iframe: WebM through
// canvas.captureStream + MediaRecorder (real time: a frame is held for its duration), and
// an animated GIF through gifenc (encoded frame by frame, no waiting).

import { applyPalette, GIFEncoder, quantize } from "gifenc";
import { canvasFor, paint, svgImage } from "./raster.js";

const WEBM_TYPES = ["video/webm;codecs=vp9", "video/webm;codecs=vp8", "video/webm"];

/** The WebM type this browser records, or null (no MediaRecorder or no WebM encoder). */
export function webmType() {
  if (typeof MediaRecorder === "undefined" || !HTMLCanvasElement.prototype.captureStream) return null;
  return WEBM_TYPES.find((t) => MediaRecorder.isTypeSupported(t)) ?? null;
}

/** Largest side of a frame, px: video encoders and GIF sizes stay sensible. */
function frameScale(width, height, max) {
  return Math.min(1, max / Math.max(width, height));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Record `frames` ({svgs, width, height} from renderSteps) as WebM, each frame held
 * `seconds`; `onFrame(i)` reports progress. Resolves to a Blob. Takes frames x seconds.
 */
export async function recordWebm({ svgs, width, height }, seconds, onFrame = () => {}) {
  const type = webmType();
  if (!type) throw new Error("this browser cannot record WebM video (no MediaRecorder)");
  const scale = frameScale(width, height, 1920);
  // Even sizes: VP8/VP9 encoders want them.
  const canvas = canvasFor(2 * Math.round((width * scale) / 2), 2 * Math.round((height * scale) / 2));
  const images = await Promise.all(svgs.map(svgImage));
  paint(canvas, images[0]);
  const stream = canvas.captureStream(0); // a frame only when asked for: requestFrame()
  const track = stream.getVideoTracks()[0];
  const recorder = new MediaRecorder(stream, { mimeType: type, videoBitsPerSecond: 4_000_000 });
  const chunks = [];
  recorder.ondataavailable = (e) => e.data.size && chunks.push(e.data);
  const stopped = new Promise((resolve, reject) => {
    recorder.onstop = resolve;
    recorder.onerror = (e) => reject(e.error ?? new Error("recording failed"));
  });
  recorder.start();
  for (const [i, img] of images.entries()) {
    onFrame(i);
    paint(canvas, img);
    track.requestFrame();
    await sleep(seconds * 1000);
  }
  // The last frame again, so it lasts its time too: a player ends the video at the last
  // frame's timestamp, and Chromium drops a requested frame of a canvas not painted since
  // the previous one, so it is painted anew first.
  paint(canvas, images.at(-1));
  track.requestFrame();
  await sleep(100);
  recorder.stop();
  await stopped;
  track.stop();
  return new Blob(chunks, { type: "video/webm" });
}

/**
 * Encode `frames` as an animated GIF that loops, each frame held `seconds`, at most 1280 px
 * on its longer side, one 256-colour palette per frame. Resolves to a Blob.
 */
export async function encodeGif({ svgs, width, height }, seconds, onFrame = () => {}) {
  const scale = frameScale(width, height, 1280);
  const canvas = canvasFor(width, height, scale);
  const gif = GIFEncoder();
  for (const [i, svg] of svgs.entries()) {
    onFrame(i);
    const ctx = paint(canvas, await svgImage(svg));
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const palette = quantize(data, 256);
    gif.writeFrame(applyPalette(data, palette), canvas.width, canvas.height,
      { palette, delay: Math.round(seconds * 1000), repeat: 0 });
    await sleep(0); // let the page breathe between frames
  }
  gif.finish();
  return new Blob([gif.bytes()], { type: "image/gif" });
}
