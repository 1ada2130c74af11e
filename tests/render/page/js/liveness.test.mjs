// The liveness curve's scales and the step under the pointer: each pixel column keeps its highest step (the peak
// is never averaged away), the axis reaches the IPU's memory when it is near, and the tip names the step and its
// bytes (a diff's two builds each), in the labels' words.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { formatter } from "../../../../memreport/render/page/js/format.mjs";
import { byteTicks } from "../../../../memreport/render/page/js/ticks.mjs";
import { columnSteps, describeStep, liveTop, longestStep, stepTicks, stepUnder } from "../../../../memreport/render/page/js/liveness.mjs";

const fixture = (name) => JSON.parse(readFileSync(new URL("./fixtures/" + name, import.meta.url), "utf8"));
const LABELS = fixture("contract.json").labels, PAGES = fixture("pages.json");

// 400 steps rising to one peak at step 237 and falling back (tests/synth/profile.py's program_steps' shape).
const HUNDREDS = Array.from({length: 400}, (_, i) => 1000 + (i <= 237 ? i : 474 - i) * 10 + (i * 389) % 7);
HUNDREDS[237] = 10_000;

test("each pixel column keeps its highest step: the one peak survives 400 steps on 96 columns", () => {
  const picked = columnSteps(HUNDREDS, 96);
  assert.equal(picked.length, 96);
  assert.ok(picked.includes(237));
  assert.deepEqual(picked.slice(0, 3), [3, 7, 11]);  // columns of 4 or 5 steps, the highest of each (rising)
  assert.deepEqual(columnSteps([5, 9, 2], 10), [0, 1, 2]);  // fewer steps than columns: every step
  assert.deepEqual(columnSteps([], 10), []);
});

test("the step under the pointer, the highest of its pixel column, none outside the plot", () => {
  assert.equal(stepUnder(HUNDREDS, 236.5 / 400 * 800, 800, 400), 236);  // two pixels a step
  assert.equal(stepUnder(HUNDREDS, 237 * 96 / 400, 96, 400), 237);  // a column of 4 steps holding the peak
  assert.equal(stepUnder(HUNDREDS, -1, 96, 400), -1);
  assert.equal(stepUnder(HUNDREDS, 96, 96, 400), -1);
  assert.equal(stepUnder([], 3, 96, 0), -1);
});

test("the axis reaches the IPU's memory only when it is near the peak", () => {
  const curve = (limit) => ({live: HUNDREDS, peak: 237, limit: limit});
  assert.equal(liveTop([curve(null)]), 10_000 * 1.05);
  assert.equal(liveTop([curve(12_000)]), 12_000 * 1.05);  // within 4 x: its line is drawn
  assert.equal(liveTop([curve(40_000)]), 40_000 * 1.05);  // at 4 x still
  assert.equal(liveTop([curve(40_001)]), 10_000 * 1.05);  // beyond: said, not drawn
  assert.equal(liveTop([curve(940_572_672)]), 10_000 * 1.05);  // far above: the curve keeps the height
  assert.equal(liveTop([curve(null), {live: [1, 20_000], peak: 1, limit: null}]), 20_000 * 1.05);  // a diff's two
});

test("the tip gives the step, its program and its bytes, and the share of the IPU's memory where one applies", () => {
  const f = formatter(LABELS);
  const curve = {label: "", live: [1200, 518_209_375], steps: ["0", "1.0"], names: [null, "fwd/conv"], peak: 1,
    limit: 940_572_672};
  assert.deepEqual(describeStep([curve], 1, LABELS, f), ["step 1.0 (fwd/conv)", "518,209,375 B live (55.1% of the IPU's memory)"]);
  assert.deepEqual(describeStep([{...curve, limit: null}], 0, LABELS, f), ["step 0", "1,200 B live"]);
  const old = {...curve, label: "Old", limit: null}, shorter = {...curve, label: "New", limit: null, live: [7], steps: ["0"], names: [null]};
  assert.deepEqual(describeStep([old, shorter], 1, LABELS, f), ["Old: step 1.0 (fwd/conv)", "518,209,375 B live"]);
  assert.deepEqual(describeStep([old, shorter], 0, LABELS, f), ["Old: step 0", "1,200 B live", "New: step 0", "7 B live"]);
});

test("the pages carry the curves: a report's one with its peak, a diff's two on one axis", () => {
  const [report] = PAGES.report.sections, [stepped] = PAGES.diff_liveness.sections;
  assert.deepEqual(report.liveness.map((c) => [c.label, c.steps, c.peak]), [["", ["0", "1", "1.0", "2"], 2]]);
  assert.deepEqual(stepped.liveness.map((c) => [c.label, c.live.length, c.peak]), [["Old", 400, 237], ["New", 400, 237]]);
  assert.equal(stepped.liveness[1].limit, 1472 * 638_976);  // one Mk2 IPU's memory
});

test("the axis ticks are round numbers of the unit their labels write", () => {
  const f = formatter(LABELS);
  assert.deepEqual(byteTicks(0, 518_209_375 * 1.05, 5).map(f.size), ["0 B", "100 MiB", "200 MiB", "300 MiB", "400 MiB", "500 MiB"]);
  assert.deepEqual(byteTicks(0, 10_500, 4).map(f.size), ["0 B", "2 KiB", "4 KiB", "6 KiB", "8 KiB", "10 KiB"]);
  assert.deepEqual(byteTicks(0, 900, 5), [0, 200, 400, 600, 800]);
});

test("the steps are named under the axis a name apart, round step numbers from the first", () => {
  // 400 steps: every 20th on 1,100 pixels, every 50th on a phone's 300 (names 20 pixels wide)
  assert.deepEqual(stepTicks(400, 1100, 20), Array.from({length: 20}, (_, k) => 20 * k));
  assert.deepEqual(stepTicks(400, 300, 20), [0, 50, 100, 150, 200, 250, 300, 350]);
  for (const [n, plotW, width] of [[400, 300, 20], [7, 1000, 30], [100_000, 330, 45], [3, 40, 25], [1, 300, 5]]) {
    const ticks = stepTicks(n, plotW, width);
    assert.equal(ticks[0], 0);
    for (let i = 1; i < ticks.length; i++) {
      assert.ok(Number.isInteger(ticks[i]) && ticks[i] < n);
      assert.ok((ticks[i] - ticks[i - 1]) * plotW / n >= width + 16, `names closer than their width: ${n} steps`);
    }
  }
  assert.deepEqual(stepTicks(0, 300, 5), []);
  assert.equal(longestStep(["0", "1", "1.0.12", "2"]), "1.0.12");
});

test("sizes on the axis in MiB from 1 MiB up", () => {
  const f = formatter(LABELS);
  assert.equal(f.size(518_209_375), "494.2 MiB");
  assert.equal(f.size(638_976), "624 KiB");
  assert.equal(f.size(512), "512 B");
});
