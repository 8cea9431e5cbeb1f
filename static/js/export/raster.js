// SVG to pixels: the SVG document drawn by the browser's own renderer onto a canvas.
// A data: URL (not a blob: URL) because the page's CSP allows images from 'self' and data:.

/** An <img> holding `svg` (an SVG document string), decoded. */
export async function svgImage(svg) {
  const img = new Image();
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  await img.decode();
  return img;
}

/** An empty canvas of `width` x `height` CSS px times `scale`. */
export function canvasFor(width, height, scale = 1) {
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  return canvas;
}

/** Draw `img` over the whole of `canvas`. */
export function paint(canvas, img) {
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
  return ctx;
}

/** A PNG Blob of `svg` at `scale` (2: sharp on a projector and in a slide). */
export async function svgToPng(svg, width, height, scale = 2) {
  const canvas = canvasFor(width, height, scale);
  paint(canvas, await svgImage(svg));
  return new Promise((resolve, reject) => canvas.toBlob(
    (blob) => (blob ? resolve(blob) : reject(new Error("the browser made no PNG"))), "image/png"));
}
