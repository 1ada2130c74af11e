// The compiles page's timeline: a row per compilation and executable load, coloured by outcome, placed at its
// time (or end to end), a red outline where the cache missed.
import { COLOURS, hideTip, setupCanvas, showTip, widest } from "./dom.mjs";
import { fill } from "./format.mjs";
import { spacedTicks } from "./ticks.mjs";

const OUTCOMES = {compiled: "#e6550d", precompiled: "#fd8d3c", loaded: "#31a354", skipped: "#9e9e9e", load: "#3182bd"};
const ROW = 18, MIN_ROW = 4, AXIS = 24;

// The canvas's height for n rows: 18 pixels a row up to 600 pixels, then thinner rows, never under 4 pixels.
export function timelineHeight(n) {
  return Math.max(80, Math.min(600, ROW * n + AXIS + 6), MIN_ROW * n + AXIS + 6);
}

// The end of the axis: the last row's end (at least a second's tenth, so a timeline of instants is drawn).
export function timelineEnd(rows) {
  let end = 0;
  for (const r of rows) end = Math.max(end, r.start + (r.duration || 0));
  return end || 1;
}

export function compilesSection(s, charts) {
  const canvas = document.getElementById(s.id + "-timeline");
  if (!canvas || !s.rows.length) return;
  const L = s.labels, F = s.format, rows = s.rows, end = timelineEnd(rows);
  canvas.style.height = timelineHeight(rows.length) + "px";
  const draw = () => {
    const [ctx, w, h] = setupCanvas(canvas);
    const left = Math.ceil(widest(ctx, rows.map((r) => r.label))) + 10, plotW = Math.max(10, w - left - 8);
    const rowH = Math.max(MIN_ROW, Math.min(ROW, (h - AXIS - 6) / rows.length)), bottom = h - AXIS;
    const x = (t) => left + plotW * t / end;
    ctx.fillStyle = COLOURS.axis; ctx.strokeStyle = COLOURS.grid; ctx.textAlign = "center"; ctx.textBaseline = "top";
    const gap = widest(ctx, [F.seconds(end, 1)]) + 16;
    for (const v of spacedTicks(0, end, plotW, gap)) {
      ctx.beginPath(); ctx.moveTo(Math.round(x(v)) + 0.5, 0); ctx.lineTo(Math.round(x(v)) + 0.5, bottom); ctx.stroke();
      ctx.fillText(F.seconds(v, 1), Math.min(x(v), w - widest(ctx, [F.seconds(v, 1)]) / 2 - 2), bottom + 4);
    }
    rows.forEach((r, i) => {
      const yy = 4 + i * rowH, xx = x(r.start), ww = r.duration === null ? 3 : Math.max(2, plotW * r.duration / end);
      ctx.fillStyle = OUTCOMES[r.result] || "#bbb";
      ctx.fillRect(xx, yy, ww, rowH - 2);
      if (r.cache === "miss") { ctx.strokeStyle = COLOURS.red; ctx.strokeRect(xx + 0.5, yy + 0.5, ww - 1, rowH - 3); }
    });
    ctx.textAlign = "right"; ctx.textBaseline = "middle"; ctx.fillStyle = COLOURS.axis;
    if (rowH >= 10) rows.forEach((r, i) => ctx.fillText(r.label, left - 4, 4 + i * rowH + rowH / 2));
    canvas.onmousemove = (e) => {
      const i = Math.floor((e.offsetY - 4) / rowH);
      if (i < 0 || i >= rows.length) { hideTip(); return; }
      const r = rows[i];
      showTip(e, [r.label + " · " + r.ref, r.what, r.cache ? fill(L.with_cache, {result: r.result, cache: r.cache}) : r.result,
        r.duration === null ? L.duration_unknown : F.seconds(r.duration, 1)]);
    };
    canvas.onmouseleave = hideTip;
  };
  draw();
  charts.push({redraw: draw});
}
