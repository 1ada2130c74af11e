// The heat map's grid, scale and legend: every tile has one block and a pixel finds it again; the colours
// stand for a share of tile memory when it is near, of the largest tile otherwise.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RING_BELOW, heatLayout, heatOrigin, heatScale, heatTileAt, ramp, shade } from "../../../../memreport/render/page/js/heatmap.mjs";

test("a pixel finds the tile drawn there, for every tile", () => {
  for (const [n, tpi, width] of [[1472, 1472, 1200], [94208, 1472, 1200], [10, 4, 300], [1216, null, 352]]) {
    const g = heatLayout(n, tpi, width);
    assert.ok(g.width <= Math.max(width, g.cols * g.zoom + 6), "wider than the card: " + [n, tpi, width]);
    for (let t = 0; t < n; t += n > 2000 ? 97 : 1) {
      const [x, y] = heatOrigin(t, g);
      for (const [dx, dy] of [[0, 0], [g.zoom - 1, g.zoom - 1]]) assert.equal(heatTileAt(x + dx, y + dy, g), t);
    }
  }
  const g = heatLayout(10, 4, 300);  // three IPUs of 4, 4 and 2 tiles
  assert.equal(g.ipus, 3);
  assert.equal(heatTileAt(g.cols * g.zoom + 1, 0, g), null);  // the gap between two IPUs
  assert.equal(heatTileAt(0, g.rows * g.zoom + 2, g), null);  // the label under an IPU
  const [x, y] = heatOrigin(9, g);
  assert.equal(heatTileAt(x + g.zoom, y, g), null);  // past the last tile
});

test("tiles as large as the card allows: 6 pixels for one IPU, smaller on a phone, 1 at pod scale", () => {
  assert.equal(heatLayout(1472, 1472, 1200).zoom, 6);
  assert.equal(heatLayout(1472, 1472, 300).zoom, 5);  // 55 columns of tiles on 300 pixels
  assert.equal(heatLayout(94208, 1472, 1200).zoom, 2);
  assert.equal(heatLayout(376832, 1472, 1200).zoom, 1);
  assert.ok(heatLayout(376832, 1472, 1200).zoom < RING_BELOW);  // out-of-memory tiles get a ring there
  assert.equal(heatLayout(94208, 1472, 1200).across, 10);  // 10 IPUs a row of 116 pixels each
});

test("the colour scale and its legend's ends", () => {
  assert.deepEqual(heatScale(788976, 638976), {top: 638976, ofLimit: true});
  assert.deepEqual(heatScale(5780, 262144), {top: 5780, ofLimit: false});  // 2% of tile memory: the largest tile
  assert.deepEqual(heatScale(0, null), {top: 1, ofLimit: false});
  assert.equal(shade(0, 638976), 0);
  assert.equal(shade(638976, 638976), 255);
  assert.equal(shade(788976, 638976), 255);  // over: the darkest (and red, drawn as out of memory)
  assert.equal(shade(319488, 638976), 128);
  assert.deepEqual(ramp(0), [255, 255, 204]);
  assert.deepEqual(ramp(1), [37, 52, 148]);
  assert.deepEqual(ramp(-1), ramp(0));
  const mid = ramp(0.5);
  assert.deepEqual(mid, [65, 182, 196]);
});
