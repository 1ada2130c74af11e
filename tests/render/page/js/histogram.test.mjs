// The By Tile histogram's scales, as the PNG's: a log count axis where counts are far apart (a 1-tile bin stays
// visible), a KiB axis that reaches tile memory when it is near, the limit's line or arrow.
import { test } from "node:test";
import assert from "node:assert/strict";
import { binAt, countHeight, kibAxis, limitPlace, prefersLog } from "../../../../memreport/render/page/js/histogram.mjs";

const bins = (counts, width = 8, from = 144) => counts.map((c, i) => ({low: from + i * width, high: from + (i + 1) * width, count: c, outOfMemory: false}));

test("a log count axis when the counts are 100 times apart or more", () => {
  assert.equal(prefersLog(bins([1, 50, 128, 3])), true);
  assert.equal(prefersLog(bins([2, 50, 128, 3])), false);
  assert.equal(prefersLog(bins([0, 0, 0])), false);
  assert.equal(prefersLog(bins([1215, 1])), true);  // the Mk1 sample: one tile alone
});

test("on the log axis a bin of one tile stands clear of the floor; linear, it is a sliver", () => {
  const high = countHeight(1215, 1215, true), one = countHeight(1, 1215, true);
  assert.ok(one > 0.04 && one < 0.06, String(one));
  assert.ok(Math.abs(high - (Math.log(1215 / 0.7)) / Math.log(1.6 * 1215 / 0.7)) < 1e-12);
  assert.ok(countHeight(1, 1215, false) < 0.001);
  assert.equal(countHeight(0, 1215, true), 0);
  assert.equal(countHeight(1215, 1215, false), 1 / 1.1);
});

test("the KiB axis reaches tile memory only when it is near, a bin's width of room each side", () => {
  const b = bins([1, 2, 3], 8, 144);  // 144 to 168 KiB
  assert.deepEqual(kibAxis(b, 200), [136, 208]);  // 200 <= 1.5 x 168: stretched to it
  assert.deepEqual(kibAxis(b, 624), [136, 176]);  // far off: the bins alone
  assert.deepEqual(kibAxis(b, null), [136, 176]);
  assert.equal(limitPlace(200, 136, 208), "at");
  assert.equal(limitPlace(624, 136, 176), "right");
  assert.equal(limitPlace(100, 136, 176), "left");
  assert.equal(limitPlace(null, 136, 176), null);
});

test("the bin under the pointer", () => {
  const b = bins([1, 2, 3], 8, 144);
  assert.equal(binAt(144, b), 0);
  assert.equal(binAt(151.9, b), 0);
  assert.equal(binAt(152, b), 1);
  assert.equal(binAt(168, b), -1);
  assert.equal(binAt(140, b), -1);
});
