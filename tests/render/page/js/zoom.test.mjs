// The tile chart's view: zoom keeps the tile under the pointer in place, the view stays within the tiles, and a
// pixel names the tiles the chart drew there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MIN_SPAN, clampView, columnTiles, opensFitted, positionAt, tilesAtPixel, valueRange, zoomView } from "../../../../memreport/render/page/js/zoom.mjs";

test("zoom keeps the tile under the pointer where it was", () => {
  assert.deepEqual(zoomView(0, 1472, 736, 0.5, 1472), [368, 1104]);  // the + button: about the middle
  const [a, b] = zoomView(100, 600, 200, 0.8, 1472);
  assert.equal(b - a, 400);
  assert.equal((200 - a) / (b - a), (200 - 100) / 500);
  assert.deepEqual(zoomView(0, 1472, 0, 2, 1472), [0, 1472]);  // out past every tile: every tile
});

test("the view stays within the tiles and never narrower than the deepest zoom", () => {
  assert.deepEqual(clampView(-50, 100, 1472), [0, 150]);
  assert.deepEqual(clampView(1400, 1600, 1472), [1272, 1472]);
  assert.deepEqual(clampView(10, 11, 1472), [10, 10 + MIN_SPAN]);
  assert.deepEqual(clampView(0, 1, 3), [0, 3]);  // fewer tiles than the deepest zoom: all of them
  assert.deepEqual(clampView(0, 0, 0), [0, 0]);
  let view = [0, 94208];
  for (let i = 0; i < 100; i++) view = zoomView(view[0], view[1], 94207.9, 0.5, 94208);
  assert.ok(view[1] - view[0] === MIN_SPAN && view[0] < 94207.9 && view[1] >= 94207.9 && view[1] <= 94208, String(view));
});

test("a pixel names the tiles drawn in its column", () => {
  // 1,472 tiles on 1,100 pixels from x = 60: column 0 holds tiles 0 and 1
  assert.deepEqual(tilesAtPixel(60, 0, 1472, 60, 1100, 1472), [0, 1]);
  assert.equal(tilesAtPixel(59, 0, 1472, 60, 1100, 1472), null);  // the y axis's labels
  assert.equal(tilesAtPixel(1160, 0, 1472, 60, 1100, 1472), null);  // past the plot
  assert.deepEqual(tilesAtPixel(1159, 0, 1472, 60, 1100, 1472), [1470, 1472]);
  // columns cover every tile once, in order
  let next = 0;
  for (let c = 0; c < 1100; c++) {
    const [a, b] = columnTiles(c, 0, 1472, 1100, 1472);
    assert.ok(a === next || (a === next - 1 && b === next), "column " + c);
    next = b;
  }
  assert.equal(next, 1472);
  // deep zoom: tiles 733.5 to 738.5 on 1,100 pixels, 220 a tile: the tile whose bar the pixel is on
  assert.deepEqual(tilesAtPixel(60 + 109, 733.5, 738.5, 60, 1100, 1472), [733, 734]);
  assert.deepEqual(tilesAtPixel(60 + 111, 733.5, 738.5, 60, 1100, 1472), [734, 735]);
  assert.equal(tilesAtPixel(60, 0, 0, 60, 1100, 0), null);  // no tiles
  assert.equal(positionAt(60 + 550, 0, 1472, 60, 1100), 736);
  assert.equal(positionAt(0, 100, 200, 60, 1100), 100);
});

test("a chart of small tiles opens fitted to them, not squashed at the foot of tile memory", () => {
  assert.equal(opensFitted(5780, 262144), true);   // a Mk1 profile: 2% of tile memory
  assert.equal(opensFitted(788976, 638976), false);  // over tile memory
  assert.equal(opensFitted(500000, 638976), false);  // within 1.5x: tile memory shows how full
  assert.equal(opensFitted(1000, null), true);
  assert.deepEqual(valueRange(0, 5780, 262144, true), [0, 5780 * 1.04]);
  assert.deepEqual(valueRange(0, 500000, 638976, false), [0, 638976 * 1.04]);
  assert.deepEqual(valueRange(-6144, 150000, null, true), [-6144 * 1.04, 150000 * 1.04]);
  assert.deepEqual(valueRange(0, 0, null, true), [0, 1]);
});
