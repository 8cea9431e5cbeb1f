// Saving and copying what the export menu makes: a Blob URL clicked through <a download>.

/** Offer `blob` as a download named `filename`. */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has its own copy once the click is handled; free the URL after that.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Put `text` on the clipboard. Rejects when the browser refuses (no permission, no focus). */
export async function copyText(text) {
  if (!navigator.clipboard?.writeText) throw new Error("this browser cannot copy from a page");
  await navigator.clipboard.writeText(text);
}
