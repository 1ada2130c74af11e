// The heat map: a small grid per IPU, a pixel block a tile, coloured by its share of tile memory (or of the
// largest tile), with a legend; out-of-memory tiles red, ringed where a tile is too small to see.
import { COLOURS, FONT, el, hideTip, showTip } from "./dom.mjs";
import { fill } from "./format.mjs";
import { LIMIT_HEADROOM } from "./zoom.mjs";

const STOPS = [[255, 255, 204], [161, 218, 180], [65, 182, 196], [44, 127, 184], [37, 52, 148]];
const GAP = 6, LABEL = 14;
export const RING_BELOW = 4;  // tiles drawn smaller than this many pixels a side are ringed when out of memory
const UNKNOWN = [200, 200, 200], RED = [214, 39, 40];

// The colour of a share f (0 to 1): light yellow to dark blue.
export function ramp(f) {
  f = Math.max(0, Math.min(1, f)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(f)), t = f - i, a = STOPS[i], b = STOPS[i + 1];
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

// What a full colour stands for: tile memory when it is near the largest tile (as the tile chart's axis), else
// the largest tile: {top, ofLimit}.
export function heatScale(largest, limit) {
  const ofLimit = Boolean(limit && limit <= LIMIT_HEADROOM * Math.max(largest, 1));
  return {top: ofLimit ? limit : Math.max(largest, 1), ofLimit: ofLimit};
}

// The step (0 to 255) of the ramp for a tile's value.
export function shade(value, top) {
  return Math.max(0, Math.min(255, Math.round(255 * value / top)));
}

// The grid: one block of cols x rows tiles per IPU, zoom pixels a tile (as large as fits width, up to 6),
// across blocks a row.
export function heatLayout(n, tilesPerIpu, width) {
  const per = tilesPerIpu && tilesPerIpu < n ? tilesPerIpu : Math.max(n, 1), ipus = Math.ceil(n / per);
  const cols = Math.ceil(Math.sqrt(per * 2)), rows = Math.ceil(per / cols);
  const preferred = ipus > 64 ? 1 : ipus > 4 ? 2 : ipus > 2 ? 3 : 6;
  const zoom = Math.max(1, Math.min(preferred, Math.floor(width / cols)));
  const cellW = cols * zoom + GAP, cellH = rows * zoom + LABEL + GAP;
  const across = Math.max(1, Math.min(ipus, Math.floor((width + GAP) / cellW)));
  return {n: n, per: per, ipus: ipus, cols: cols, rows: rows, zoom: zoom, cellW: cellW, cellH: cellH, across: across,
    width: across * cellW, height: Math.ceil(ipus / across) * cellH};
}

// The top-left pixel of tile t.
export function heatOrigin(t, g) {
  const ipu = Math.floor(t / g.per), k = t - ipu * g.per;
  return [(ipu % g.across) * g.cellW + (k % g.cols) * g.zoom, Math.floor(ipu / g.across) * g.cellH + Math.floor(k / g.cols) * g.zoom];
}

// The tile under pixel (x, y), or null (a gap, a label, past the last tile).
export function heatTileAt(x, y, g) {
  const column = Math.floor(x / g.cellW), ipu = Math.floor(y / g.cellH) * g.across + column;
  const cx = x - column * g.cellW, cy = y - Math.floor(y / g.cellH) * g.cellH;
  if (x < 0 || y < 0 || column >= g.across || ipu >= g.ipus || cx >= g.cols * g.zoom || cy >= g.rows * g.zoom) return null;
  const k = Math.floor(cy / g.zoom) * g.cols + Math.floor(cx / g.zoom), t = ipu * g.per + k;
  return k < g.per && t < g.n ? t : null;
}

function legend(scale, rings, unknown, labels, format) {
  const box = el("div", "heat-legend"), bar = el("canvas", "ramp");
  bar.width = 160; bar.height = 10;
  const ctx = bar.getContext("2d");
  for (let x = 0; x < bar.width; x++) {
    const [r, g, b] = ramp(x / (bar.width - 1));
    ctx.fillStyle = "rgb(" + Math.round(r) + "," + Math.round(g) + "," + Math.round(b) + ")";
    ctx.fillRect(x, 0, 1, bar.height);
  }
  const swatch = (cls, text) => { const s = el("span"); s.append(el("i", "sw " + cls), text); return s; };
  box.append(el("span", "end", format.kib(0)), bar, el("span", "end", format.kib(scale.top)),
    swatch(rings ? "ring" : "oom", rings ? labels.heat_ringed : labels.heat_out_of_memory));
  if (unknown) box.append(swatch("unknown", labels.heat_unknown));
  const hint = el("p", "hint", fill(scale.ofLimit ? labels.heat_of_limit : labels.heat_of_largest,
    {size: format.bytes(scale.top)}));
  return [box, hint];
}

// Every IPU's grid on one canvas (hundreds of canvases would make every frame of the tile chart's pan and zoom
// repaint hundreds of layers), then the legend.
export function drawHeatMap(host, s, values, oom, known, pick, describe) {
  const labels = s.labels, format = s.format, n = values.length;
  if (!n) { host.append(el("p", "hint", labels.no_tiles)); return; }
  let largest = 0, unknown = false;
  for (let i = 0; i < n; i++) {
    if (known && !known[i]) { unknown = true; continue; }
    if (values[i] > largest) largest = values[i];
  }
  const scale = heatScale(largest, s.limit), g = heatLayout(n, s.heatTilesPerIpu, host.clientWidth || 1200);
  const c = el("canvas");
  c.width = g.width; c.height = g.height; c.style.width = c.width + "px"; c.style.height = c.height + "px";
  const ctx = c.getContext("2d"), img = ctx.createImageData(c.width, c.height), d = img.data;
  const lut = new Uint8Array(3 * 256);  // the ramp in 256 steps: no array made per tile
  for (let q = 0; q < 256; q++) lut.set(ramp(q / 255), 3 * q);
  const red = [];
  for (let i = 0; i < n; i++) {
    const [x0, y0] = heatOrigin(i, g);
    let r, gr, b;
    if (known && !known[i]) [r, gr, b] = UNKNOWN;
    else if (oom && oom[i]) { [r, gr, b] = RED; red.push(i); }
    else { const q = 3 * shade(values[i], scale.top); r = lut[q]; gr = lut[q + 1]; b = lut[q + 2]; }
    for (let dy = 0; dy < g.zoom; dy++) {
      let p = 4 * ((y0 + dy) * c.width + x0);
      for (let dx = 0; dx < g.zoom; dx++, p += 4) { d[p] = r; d[p + 1] = gr; d[p + 2] = b; d[p + 3] = 255; }
    }
  }
  ctx.putImageData(img, 0, 0);
  const rings = g.zoom < RING_BELOW && red.length > 0;
  if (rings) {  // a pixel or two of red is lost among thousands: a ring around each makes it visible
    ctx.strokeStyle = COLOURS.red; ctx.lineWidth = 1.5; ctx.beginPath();
    for (const i of red) { const [x, y] = heatOrigin(i, g); ctx.rect(x - 2.5, y - 2.5, g.zoom + 5, g.zoom + 5); }
    ctx.stroke();
  }
  ctx.font = FONT; ctx.fillStyle = COLOURS.axis; ctx.textBaseline = "top";
  for (let ipu = 0; ipu < g.ipus; ipu++) {
    const text = g.per >= n ? fill(labels.heat_all_tiles, {last: format.count(n - 1)}) : fill(labels.ipu, {ipu: format.count(ipu)});
    ctx.fillText(text, (ipu % g.across) * g.cellW, Math.floor(ipu / g.across) * g.cellH + g.rows * g.zoom + 1);
  }
  c.addEventListener("mousemove", (e) => {
    const t = heatTileAt(e.offsetX, e.offsetY, g);
    if (t === null) hideTip(); else showTip(e, describe(t));
  });
  c.addEventListener("mouseleave", hideTip);
  c.addEventListener("click", (e) => { const t = heatTileAt(e.offsetX, e.offsetY, g); if (t !== null) pick(t); });
  host.append(c, ...legend(scale, rings, unknown, labels, format));
}
