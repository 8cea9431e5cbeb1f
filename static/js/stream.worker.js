// The stream worker: makes the page's POST /api/trace/stream, reads and parses the answer off
// the page's main thread, and posts the graph back in slices and the events in batches
// (stream.js relayRequest, relayTrace). One job per worker; the page terminates it to cancel
// (which ends the request). Bundled as static/dist/stream.worker.js.

import { relayRequest } from "./stream.js";

self.onmessage = ({ data }) => relayRequest(data.request, (message) => self.postMessage(message));
