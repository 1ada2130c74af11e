// Where the ticks go: one per tile centred under its bar at deep zoom, no label twice, never at a bar's edge.
import { test } from "node:test";
import assert from "node:assert/strict";
import { besideLine, byteTicks, byteUnit, countTicks, ipuBoundaries, ipuLabelStride, logTicks, niceStep, spacedTicks, tileTicks } from "../../../../memreport/render/page/js/ticks.mjs";
import { formatter } from "../../../../memreport/render/page/js/format.mjs";
import { zoomView } from "../../../../memreport/render/page/js/zoom.mjs";

const F = formatter({bytes: "{n} B", kib: "{n} KiB", unknown: "unknown"});

test("round steps", () => {
  assert.deepEqual([1, 7, 14, 30, 99, 1472].map((r) => niceStep(r, 5)), [0.2, 1, 2, 5, 20, 200]);
  assert.equal(niceStep(0, 5), 1);
  assert.equal(niceStep(NaN, 5), 1);
});

test("at deep zoom, one tick per tile, centred under its bar", () => {
  // tiles 733.5 to 738.5 on 1,100 pixels: 220 pixels a tile
  const ticks = tileTicks(733, 738, 1472, 1100, 60);
  assert.deepEqual(ticks.map((t) => t.tile), [733, 734, 735, 736, 737]);
  for (const t of ticks) assert.equal(t.at, t.tile + 0.5);  // the middle of [tile, tile + 1)
  // tiles 733 and 738, half in view, have their centres on the view's edges: not labelled there
  assert.deepEqual(tileTicks(733.5, 738.5, 1472, 1100, 60).map((t) => t.tile), [734, 735, 736, 737]);
  assert.deepEqual(tileTicks(0, 5, 5, 1100, 60).map((t) => t.tile), [0, 1, 2, 3, 4]);
});

test("no label twice, none at a bar's edge, labels apart, at every zoom from the pod to a few tiles", () => {
  const n = 376832;
  let view = [0, n];
  for (let step = 0; step < 80; step++) {
    for (const plotW of [300, 1100]) {
      const ticks = tileTicks(view[0], view[1], n, plotW, 50), labels = ticks.map((t) => F.count(t.tile));
      assert.equal(new Set(labels).size, labels.length, "a label repeated at " + view);
      const px = ticks.map((t) => (t.at - view[0]) / (view[1] - view[0]) * plotW);
      for (let i = 1; i < px.length; i++) assert.ok(px[i] - px[i - 1] >= 50 - 1e-6, "labels closer than 50 px at " + view);
      for (const t of ticks) {
        assert.equal(t.at - Math.floor(t.at), 0.5);  // a tile's centre, never its edge
        assert.ok(t.at > view[0] && t.at < view[1] && t.tile < n);
      }
      assert.ok(ticks.length >= 1, "no tick at " + view);
    }
    view = zoomView(view[0], view[1], 200_001.3, 0.8, n);
  }
  assert.equal(view[1] - view[0], 5);  // the deepest zoom
});

test("byte ticks are whole bytes, or whole KiB from 4 KiB up: no label twice", () => {
  for (const [lo, hi] of [[0, 3], [0, 7], [-2, 2], [0, 4096], [0, 9000], [-6390, 155000], [0, 830000], [0, 1.04]]) {
    const ticks = byteTicks(lo, hi, 5), labels = ticks.map(F.kib);
    assert.equal(new Set(labels).size, labels.length, labels.join(" "));
    assert.ok(ticks.length >= 2 || hi - lo < 2, lo + " to " + hi);
    for (const v of ticks) assert.ok(v >= lo && v <= hi && Number.isInteger(v));
  }
  assert.deepEqual(byteTicks(0, 830000, 5), [0, 204800, 409600, 614400, 819200]);
  assert.deepEqual(byteTicks(0, 3, 5), [0, 1, 2, 3]);
  // a program's total (a trend's): whole MiB, never 100,000 KiB where 100 MiB is meant
  assert.deepEqual(byteTicks(0, 478_000_000, 4), [0, 100, 200, 300, 400].map((m) => m * 1048576));
  assert.deepEqual([byteUnit(0, 4 * 1048576), byteUnit(-10, 4 * 1048576 - 11), byteUnit(0, 4096), byteUnit(0, 4095)],
    [1048576, 1024, 1024, 1]);
});

test("IPU lines are named every stride-th IPU where they stand closer than a name", () => {
  // a pod of 64 IPUs on 1,090 pixels: 17 pixels an IPU, a name 36 wide: every 5th (IPU 0, IPU 5, ...)
  assert.equal(ipuLabelStride(1090 / 64, 36), 5);
  assert.equal(ipuLabelStride(1090 / 8, 36), 1);  // eight IPUs: each
  assert.equal(ipuLabelStride(36, 36), 1);
  assert.equal(ipuLabelStride(35.9, 36), 2);
  assert.equal(ipuLabelStride(0.5, 36), 100);
  for (let px = 0.3; px < 80; px *= 1.37) {
    const s = ipuLabelStride(px, 40);
    assert.ok(s * px >= 40 && [1, 2, 5].includes(s / Math.pow(10, Math.floor(Math.log10(s)))), String(px));
    assert.ok(s === 1 || [1, 2, 5, 10].map((m) => m * s / 10).some((t) => t < s && t * px < 40));  // none smaller fits
  }
  assert.equal(ipuLabelStride(0, 40), Infinity);
});

test("a line's label stands after it, before it where it would run past the edge, never cut", () => {
  assert.deepEqual(besideLine(100, 120, 40, 400, 4), {x: 104, align: "left"});
  assert.deepEqual(besideLine(300, 120, 40, 400, 4), {x: 296, align: "right"});  // the histogram's limit on a phone
  assert.deepEqual(besideLine(100, 120, 40, 200, 4), {x: 200, align: "right"});  // room on neither side: flush right
  for (let x = 0; x <= 400; x += 7) {
    const at = besideLine(x, 90, 0, 400, 4), start = at.align === "left" ? at.x : at.x - 90;
    assert.ok(start >= 0 && start + 90 <= 400, String(x));
  }
});

test("IPU boundaries in view, and counts on linear and log axes", () => {
  assert.deepEqual(ipuBoundaries(1000, 5000, 1472, 94208), [1472, 2944, 4416]);
  assert.deepEqual(ipuBoundaries(0, 1472, 1472, 1472), []);  // one IPU: none
  assert.deepEqual(ipuBoundaries(0, 8, null, 8), []);
  assert.deepEqual(logTicks(1.6 * 1215), [1, 10, 100, 1000]);
  assert.deepEqual(countTicks(1.1 * 3, 4), [0, 1, 2, 3]);  // never half a tile
  assert.deepEqual(countTicks(1.1 * 128, 4), [0, 50, 100]);
});

test("spaced ticks keep their labels apart however narrow the axis", () => {
  for (const plotW of [250, 330, 1100]) {
    const ticks = spacedTicks(0, 3700, plotW, 60);
    for (let i = 1; i < ticks.length; i++) assert.ok((ticks[i] - ticks[i - 1]) / 3700 * plotW >= 60);
    assert.equal(ticks[0], 0);
  }
  assert.deepEqual(spacedTicks(-8, 760, 1100, 70), [0, 50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 550, 600, 650, 700, 750]);
});
