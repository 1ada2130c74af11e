// The chart of every tile: a bar per tile when they fit, else a bar per pixel column (its largest tile light
// over its smallest dark, red where one is out of memory); zoom and pan from the whole pod to a few tiles.
import { COLOURS, emptyCanvas, hideTip, setupCanvas, showTip, widest } from "./dom.mjs";
import { fill } from "./format.mjs";
import { byteTicks, ipuBoundaries, ipuLabelStride, tileTicks } from "./ticks.mjs";
import { clampView, columnTiles, opensFitted, positionAt, tilesAtPixel, valueRange, zoomView } from "./zoom.mjs";

const TOP = 16, BOTTOM = 22, RIGHT = 8;
const LABEL_BACK = "rgba(255, 255, 255, 0.85)";  // behind the tile memory line's label: the bars show through, faintly

// values: per-tile bytes (or change); opts: {limit, mark (1: out of memory), known (0: unknown), tilesPerIpu,
// signed (gains up, losses down), pick(tile), describe(range) -> lines, labels, format}.
export class TileChart {
  constructor(box, values, opts) {
    this.box = box; this.canvas = box.querySelector("canvas"); this.values = values; this.o = opts;
    this.n = values.length; this.x0 = 0; this.x1 = this.n; this.frames = []; this.left = 0; this.plotW = 1;
    let lo = 0, hi = 0;
    for (let i = 0; i < this.n; i++) {
      if (opts.known && !opts.known[i]) continue;
      const v = values[i];
      if (v > hi) hi = v;
      if (v < lo) lo = v;
    }
    this.smallest = lo; this.largest = hi;
    this.fitted = opensFitted(hi, opts.limit);
    this.fitButton = box.querySelector("button[data-act=fit]");
    if (this.fitButton) this.fitButton.hidden = !opts.limit;
    if (!this.n) box.querySelectorAll("button").forEach((b) => { b.hidden = true; });
    this.scale();
    this.bind();
    this.draw();
  }
  scale() {
    [this.lo, this.hi] = valueRange(this.smallest, this.largest, this.o.limit, this.fitted);
    if (this.fitButton) this.fitButton.textContent = this.fitted ? this.o.labels.to_tile_memory : this.o.labels.fit_height;
  }
  bind() {
    const c = this.canvas;
    this.box.querySelectorAll("button[data-act]").forEach((b) => b.addEventListener("click", () => {
      const act = b.dataset.act;
      if (act === "fit") { this.fitted = !this.fitted; this.scale(); this.draw(); }
      else if (act === "reset") this.setView(0, this.n);
      else this.zoom((this.x0 + this.x1) / 2, act === "in" ? 0.5 : 2);
    }));
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.zoom(positionAt(e.offsetX, this.x0, this.x1, this.left, this.plotW), e.deltaY < 0 ? 0.8 : 1.25);
    }, {passive: false});
    let drag = null;
    c.addEventListener("pointerdown", (e) => { drag = {x: e.clientX, x0: this.x0, x1: this.x1, moved: false}; });
    window.addEventListener("pointerup", () => { setTimeout(() => { drag = null; }, 0); });
    c.addEventListener("pointermove", (e) => {
      if (drag && (e.buttons & 1)) {
        const dx = e.clientX - drag.x, per = (drag.x1 - drag.x0) / this.plotW;
        if (Math.abs(dx) > 2) drag.moved = true;
        this.setView(drag.x0 - dx * per, drag.x1 - dx * per);
      }
      this.hover(e);
    });
    c.addEventListener("mouseleave", hideTip);
    c.addEventListener("click", (e) => {
      if (drag && drag.moved) return;
      const r = this.columnAt(e.offsetX);
      if (r && r.max !== -Infinity) this.o.pick(r.worst);
    });
    c.addEventListener("dblclick", () => this.setView(0, this.n));
  }
  zoom(center, factor) {
    const [a, b] = zoomView(this.x0, this.x1, center, factor, this.n);
    this.setView(a, b);
  }
  // The view [a, b), drawn at the next animation frame.
  setView(a, b) {
    [this.x0, this.x1] = clampView(a, b, this.n);
    if (!this.pending) {
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.draw(); });
    }
  }
  // The view [a, b), drawn now.
  show(a, b) {
    [this.x0, this.x1] = clampView(a, b, this.n);
    this.draw();
  }
  // The tiles [a, b): their smallest and largest value, the worst tile, how many are out of memory.
  range(a, b) {
    const v = this.values, mark = this.o.mark, known = this.o.known;
    let mn = Infinity, mx = -Infinity, worst = a, red = 0, best = -Infinity;
    for (let i = a; i < b; i++) {
      if (known && !known[i]) continue;
      const x = v[i], key = this.o.signed ? Math.abs(x) : x;
      if (x < mn) mn = x;
      if (x > mx) mx = x;
      if (key > best) { best = key; worst = i; }
      if (mark && mark[i]) red++;
    }
    return {a: a, b: b, min: mn, max: mx, worst: worst, red: red};
  }
  columnAt(px) {
    const tiles = tilesAtPixel(px, this.x0, this.x1, this.left, this.plotW, this.n);
    return tiles ? this.range(tiles[0], tiles[1]) : null;
  }
  draw() {
    const t0 = performance.now();
    if (!this.n) { emptyCanvas(this.canvas, this.o.labels.no_tiles); return; }
    const [ctx, w, h] = setupCanvas(this.canvas);
    const L = this.o.labels, F = this.o.format, lo = this.lo, hi = this.hi;
    const ticks = byteTicks(lo, hi, 5), tickLabels = ticks.map(F.kib);
    const left = this.left = Math.ceil(widest(ctx, tickLabels)) + 10;
    const plotW = this.plotW = Math.max(10, w - left - RIGHT), plotH = h - TOP - BOTTOM;
    const y = (v) => TOP + plotH * (1 - (v - lo) / (hi - lo));
    ctx.strokeStyle = COLOURS.grid; ctx.fillStyle = COLOURS.axis; ctx.textAlign = "right"; ctx.textBaseline = "middle";
    ticks.forEach((v, i) => {
      ctx.beginPath(); ctx.moveTo(left, y(v) + 0.5); ctx.lineTo(left + plotW, y(v) + 0.5); ctx.stroke();
      ctx.fillText(tickLabels[i], left - 4, y(v));
    });
    const x0 = this.x0, x1 = this.x1, span = x1 - x0, base = y(Math.max(lo, 0));
    const first = Math.floor(x0), last = Math.min(this.n, Math.ceil(x1));
    const xpx = (t) => left + (t - x0) / span * plotW;
    ctx.save();  // bars, boundaries and the limit inside the plot only: never over the axis labels
    ctx.beginPath(); ctx.rect(left, TOP, plotW, plotH); ctx.clip();
    if (last - first <= plotW) this.bars(ctx, first, last, xpx, y, base);
    else this.columns(ctx, left, plotW, y, base);
    // IPU boundaries where they stand 8 pixels apart or more (closer, they would grey the whole plot)
    const tpi = this.o.tilesPerIpu, spaced = tpi && tpi < this.n && tpi * plotW / span >= 8;
    const bounds = spaced ? ipuBoundaries(x0, x1, tpi, this.n) : [];
    ctx.strokeStyle = COLOURS.boundary;
    for (const b of bounds) {
      ctx.beginPath(); ctx.moveTo(Math.round(xpx(b)) + 0.5, TOP); ctx.lineTo(Math.round(xpx(b)) + 0.5, TOP + plotH); ctx.stroke();
    }
    const limit = this.o.limit;
    if (limit && limit <= hi) {
      ctx.strokeStyle = COLOURS.red; ctx.setLineDash([5, 4]); ctx.beginPath();
      ctx.moveTo(left, y(limit) + 0.5); ctx.lineTo(left + plotW, y(limit) + 0.5); ctx.stroke(); ctx.setLineDash([]);
      const text = fill(L.tile_memory, {size: F.kib(limit)}), tw = ctx.measureText(text).width;
      ctx.fillStyle = LABEL_BACK; ctx.fillRect(left + 2, y(limit) - 14, tw + 4, 13);  // bars crossing it stay behind
      ctx.fillStyle = COLOURS.red; ctx.textAlign = "left"; ctx.textBaseline = "bottom";
      ctx.fillText(text, left + 4, y(limit) - 2);
    }
    ctx.restore();
    let note = 0;
    if (limit && limit > hi) {  // fitted below tile memory: say where it is, above the plot at the right
      const text = fill(L.tile_memory_above, {size: F.kib(limit)});
      note = ctx.measureText(text).width + 12;
      ctx.fillStyle = COLOURS.red; ctx.textAlign = "right"; ctx.textBaseline = "bottom";
      ctx.fillText(text, left + plotW, TOP - 2);
    }
    if (spaced) this.ipuLabels(ctx, bounds, xpx, left, plotW - note);
    ctx.strokeStyle = COLOURS.axis; ctx.beginPath(); ctx.moveTo(left, base + 0.5); ctx.lineTo(left + plotW, base + 0.5); ctx.stroke();
    ctx.fillStyle = COLOURS.axis; ctx.textAlign = "center"; ctx.textBaseline = "top";
    const gap = widest(ctx, [F.count(this.n - 1)]) + 12;
    for (const t of tileTicks(x0, x1, this.n, plotW, gap)) {
      const text = F.count(t.tile), half = ctx.measureText(text).width / 2;
      if (xpx(t.at) + half <= w) ctx.fillText(text, Math.max(half, xpx(t.at)), TOP + plotH + 4);
    }
    const view = this.box.querySelector(".view");
    if (view) view.textContent = fill(L.chart_view, {first: F.count(first), last: F.count(last - 1), n: F.count(this.n)});
    this.box.dataset.view = first + "-" + (last - 1);
    this.frames.push(performance.now() - t0);
  }
  bars(ctx, first, last, xpx, y, base) {  // a bar per tile
    const known = this.o.known, mark = this.o.mark;
    for (let i = first; i < last; i++) {
      if (known && !known[i]) continue;
      const v = this.values[i], xa = xpx(i), xb = xpx(i + 1), bw = Math.max(1, xb - xa - (xb - xa > 4 ? 1 : 0));
      ctx.fillStyle = mark && mark[i] ? COLOURS.red : COLOURS.dark;
      ctx.fillRect(xa, Math.min(y(v), base), bw, Math.abs(base - y(v)));
    }
  }
  columns(ctx, left, plotW, y, base) {  // a bar per pixel column: its largest tile (light) over its smallest (dark)
    for (let c = 0; c < plotW; c++) {
      const [a, b] = columnTiles(c, this.x0, this.x1, plotW, this.n), r = this.range(a, b);
      if (r.max === -Infinity) continue;
      if (this.o.signed) {  // gains up, losses down, from the zero line
        ctx.fillStyle = r.red ? COLOURS.red : COLOURS.dark;
        if (r.max > 0) ctx.fillRect(left + c, y(r.max), 1, base - y(r.max));
        if (r.min < 0) ctx.fillRect(left + c, base, 1, y(r.min) - base);
        continue;
      }
      ctx.fillStyle = r.red ? COLOURS.red : COLOURS.light;
      ctx.fillRect(left + c, y(r.max), 1, base - y(r.max));
      ctx.fillStyle = r.red ? COLOURS.darkRed : COLOURS.dark;
      ctx.fillRect(left + c, y(r.min), 1, base - y(r.min));
    }
  }
  // "IPU k" above the plot at the start of each IPU in view (the grey lines), where the label fits before the next;
  // every stride-th IPU where the lines stand closer than a label (a pod's whole program: IPU 0, IPU 5, ...).
  ipuLabels(ctx, bounds, xpx, left, plotW) {
    const tpi = this.o.tilesPerIpu, right = left + plotW;
    const widestName = ctx.measureText(fill(this.o.labels.ipu, {ipu: this.o.format.count(Math.floor((this.n - 1) / tpi))})).width;
    const stride = ipuLabelStride(tpi * this.plotW / (this.x1 - this.x0), widestName + 8);
    const starts = [Math.floor(this.x0 / tpi) * tpi, ...bounds].filter((s) => (s / tpi) % stride === 0);
    ctx.fillStyle = COLOURS.axis; ctx.textAlign = "left"; ctx.textBaseline = "bottom";
    starts.forEach((s, i) => {
      const text = fill(this.o.labels.ipu, {ipu: this.o.format.count(s / tpi)});
      const x = Math.max(left, xpx(s)) + 3, end = i + 1 < starts.length ? xpx(starts[i + 1]) : right;
      if (x + ctx.measureText(text).width + 4 <= Math.min(end, right)) ctx.fillText(text, x, TOP - 2);
    });
  }
  hover(e) {
    const r = this.columnAt(e.offsetX);
    if (!r || r.max === -Infinity) { hideTip(); return; }
    showTip(e, this.o.describe(r));
  }
}
