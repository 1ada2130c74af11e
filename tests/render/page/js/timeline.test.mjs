// The compiles timeline's size: a row each, thinner past 600 pixels, never so thin a row vanishes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { timelineEnd, timelineHeight } from "../../../../memreport/render/page/js/timeline.mjs";

test("a row each, within bounds", () => {
  assert.equal(timelineHeight(1), 80);
  assert.equal(timelineHeight(4), 18 * 4 + 30);
  assert.equal(timelineHeight(40), 600);
  assert.equal(timelineHeight(250), 4 * 250 + 30);  // 250 rows: 4 pixels each, not squeezed into 600
});

test("the axis ends where the last row does", () => {
  assert.equal(timelineEnd([{start: 0, duration: 75.253}, {start: 75.253, duration: 1.063}, {start: 3676, duration: null}]), 3676);
  assert.equal(timelineEnd([{start: 0, duration: null}]), 1);
  assert.equal(timelineEnd([{start: 10, duration: 5}, {start: 2, duration: 1}]), 15);
});
