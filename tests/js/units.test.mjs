// A number never parts from its unit: the ledger's heading broke "now 2.30" from "KB" across
// two lines in the projector's side column at 1024x768 (issue 14 §5). The formatters join
// them with a non-breaking space (U+00A0), so a line may break before the number, not in it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { formatBytes, formatFlops } from "../../static/js/ledger.js";

test("bytes and FLOPs keep their unit on the number's line", () => {
  assert.equal(formatBytes(256), "256\u00a0B");
  assert.equal(formatBytes(2304), "2.30\u00a0KB");
  assert.equal(formatBytes(12_600_000), "12.6\u00a0MB");
  assert.equal(formatFlops(840), "840\u00a0FLOPs");
  assert.equal(formatFlops(9570), "9.57\u00a0kFLOPs");
  assert.equal(formatFlops(1_230_000), "1.23\u00a0MFLOPs");
});
