// The trend's charts: a line never bridges a build that does not say, the axis holds every value, limit and 0, each
// build has its place (and the pointer finds it), and the builds' names under the axis never overlap.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildAt, buildX, labelled, runs, valueAxis } from "../../../../memreport/render/page/js/trend.mjs";

test("a line joins the known values only", () => {
  assert.deepEqual(runs([1, 2, null, 4, 5, 6, null]), [[0, 1], [3, 5]]);
  assert.deepEqual(runs([null, 3]), [[1, 1]]);
  assert.deepEqual(runs([null, null]), []);
  assert.deepEqual(runs([7]), [[0, 0]]);
  assert.deepEqual(runs([]), []);
});

test("the value axis holds every value, limit and 0, padded by a twentieth", () => {
  assert.deepEqual(valueAxis([100, 200, null], [400, 400, null]), [0, 420]);
  assert.deepEqual(valueAxis([-150000, 256364], [0, 0]), [-150000 - 20318.2, 256364 + 20318.2]);
  assert.deepEqual(valueAxis([null, null], [null, null]), [0, 1]);  // nothing known: a unit axis, not NaN
  assert.deepEqual(valueAxis([3, 3], [null, null]), [0, 3.15]);
});

test("builds spread over the plot, a lone one in the middle, and the pointer finds the nearest", () => {
  assert.equal(buildX(0, 3, 10, 200), 10);
  assert.equal(buildX(1, 3, 10, 200), 110);
  assert.equal(buildX(2, 3, 10, 200), 210);
  assert.equal(buildX(0, 1, 10, 200), 110);
  assert.equal(buildAt(59, 3, 10, 200), 0);
  assert.equal(buildAt(61, 3, 10, 200), 1);
  assert.equal(buildAt(-50, 3, 10, 200), 0);   // left of the plot: the first
  assert.equal(buildAt(999, 3, 10, 200), 2);   // right of it: the last
  assert.equal(buildAt(5, 1, 10, 200), 0);
});

test("the builds named under the axis are spaced apart, the last always among them", () => {
  assert.deepEqual(labelled(3, 600, 60), [0, 1, 2]);
  assert.deepEqual(labelled(50, 600, 60), [0, 5, 10, 15, 20, 25, 30, 35, 40, 49]);  // 45 too close to the last
  assert.deepEqual(labelled(1, 600, 60), [0]);
  for (const [n, w, gap] of [[50, 300, 70], [7, 100, 40], [200, 1200, 90]]) {
    const shown = labelled(n, w, gap), step = w / Math.max(n - 1, 1);
    assert.equal(shown[shown.length - 1], n - 1);
    for (let k = 1; k < shown.length; k++) assert.ok((shown[k] - shown[k - 1]) * step >= gap, `${n} ${w} ${gap}`);
  }
});
