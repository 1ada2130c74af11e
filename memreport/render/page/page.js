"use strict";
// memreport's page: draws the charts from the data block, with no request of any kind (see document.py).
(function () {
  const DATA = JSON.parse(document.getElementById("memreport-data").textContent);
  const RED = "#d62728", LIGHT = "#9ecae1", DARK = "#3182bd", AXIS = "#555", GRID = "#e4e4e4";
  const charts = [];
  // Numbers with thousands separators, written out here: the first toLocaleString of a page loads the
  // locale data, 60-150 ms of a page that should be ready within a second.
  const group = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const num = (v, places) => {  // v rounded to at most `places` decimals, trailing zeros dropped (toLocaleString's way)
    const text = Math.abs(v).toFixed(places), [whole, frac] = text.split(".");
    const rest = frac ? frac.replace(/0+$/, "") : "", sign = v < 0 && Number(text) !== 0 ? "-" : "";
    return sign + group(whole) + (rest ? "." + rest : "");
  };
  const fmt = (v) => (v === null || v === undefined ? "unknown" : num(Math.round(v) || 0, 0));
  const bytes = (v) => (v === null || v === undefined ? "unknown" : fmt(v) + " B");
  const pct = (v, limit) => (limit ? (100 * v / limit).toFixed(1) + "%" : "");

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  async function unpack(p) {
    if (!p) return null;
    const raw = atob(p.z), u = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) u[i] = raw.charCodeAt(i);
    const stream = new Blob([u]).stream().pipeThrough(new DecompressionStream("gzip"));
    const b = new Uint8Array(await new Response(stream).arrayBuffer());
    const T = {u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array, f64: Float64Array}[p.t];
    const k = T.BYTES_PER_ELEMENT, n = b.length / k, out = new Uint8Array(b.length);
    for (let j = 0; j < k; j++) {  // unshuffle: byte j of every value was stored together (document.py)
      const from = j * n;
      for (let i = 0, to = j; i < n; i++, to += k) out[to] = b[from + i];
    }
    return new T(out.buffer);
  }

  // ---------------------------------------------------------------- the tip that follows the pointer
  const tip = document.getElementById("tip");
  function showTip(evt, lines) {
    tip.replaceChildren(...lines.map((l) => el("div", "", l)));
    tip.hidden = false;
    const x = Math.min(evt.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    tip.style.left = x + "px";
    tip.style.top = (evt.clientY + 14) + "px";
  }
  function hideTip() { tip.hidden = true; }

  function niceStep(range, count) {
    const raw = range / Math.max(1, count), p = Math.pow(10, Math.floor(Math.log10(raw)));
    const m = raw / p;
    return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
  }
  function kib(v) { return Math.abs(v) >= 1024 ? num(v / 1024, 1) + " KiB" : fmt(v) + " B"; }

  function setup(canvas) {
    const dpr = window.devicePixelRatio || 1, w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.font = "11px system-ui, sans-serif";
    return [ctx, w, h];
  }

  // ---------------------------------------------------------------- every tile: min and max per pixel column
  // values: per-tile bytes (or change); mark: per-tile 1 = out of memory (red); unknown: 0 = bytes unknown.
  class TileChart {
    constructor(box, values, opts) {
      this.box = box; this.canvas = box.querySelector("canvas"); this.values = values; this.o = opts;
      this.n = values.length; this.x0 = 0; this.x1 = this.n; this.frames = [];
      let lo = 0, hi = 0;
      for (let i = 0; i < this.n; i++) { const v = values[i]; if (v > hi) hi = v; if (v < lo) lo = v; }
      this.dataLo = lo; this.dataHi = hi; this.fit = false;
      this.scale();
      this.bind();
      this.draw();
    }
    bind() {
      const c = this.canvas;
      this.box.querySelectorAll("button[data-act]").forEach((b) => b.addEventListener("click", () => {
        const act = b.dataset.act, mid = (this.x0 + this.x1) / 2;
        if (act === "fit") { this.fit = !this.fit; b.textContent = this.fit ? "Tile memory" : "Fit height"; this.scale(); this.draw(); }
        else if (act === "reset") this.setView(0, this.n);
        else this.zoomAt(mid, act === "in" ? 0.5 : 2);
      }));
      c.addEventListener("wheel", (e) => {
        e.preventDefault();
        this.zoomAt(this.tileAt(e.offsetX, true), e.deltaY < 0 ? 0.8 : 1.25);
      }, {passive: false});
      let drag = null;
      c.addEventListener("pointerdown", (e) => { drag = {x: e.clientX, x0: this.x0, x1: this.x1, moved: false}; });
      window.addEventListener("pointerup", () => { setTimeout(() => { drag = null; }, 0); });
      c.addEventListener("pointermove", (e) => {
        if (drag && (e.buttons & 1)) {
          const dx = e.clientX - drag.x;
          if (Math.abs(dx) > 2) drag.moved = true;
          const per = (drag.x1 - drag.x0) / this.plotW;
          this.setView(drag.x0 - dx * per, drag.x1 - dx * per);
        }
        this.hover(e);
      });
      c.addEventListener("mouseleave", hideTip);
      c.addEventListener("click", (e) => {
        if (drag && drag.moved) return;
        const r = this.columnAt(e.offsetX);
        if (r) this.o.pick(r.worst);
      });
      c.addEventListener("dblclick", () => this.setView(0, this.n));
    }
    scale() {  // the y range: down to the smallest change, up to tile memory or (fit) the largest tile
      const lo = this.dataLo, hi = this.fit ? this.dataHi : Math.max(this.dataHi, this.o.limit || 0);
      this.lo = lo < 0 ? lo * 1.04 : 0;
      this.hi = hi <= this.lo ? this.lo + 1 : hi * 1.04;
    }
    tileAt(px, exact) {
      const f = (px - this.left) / this.plotW;
      return this.x0 + Math.max(0, Math.min(1, f)) * (this.x1 - this.x0) - (exact ? 0 : 0);
    }
    zoomAt(center, factor) {
      const span = Math.max(1, Math.min(this.n, (this.x1 - this.x0) * factor));
      const f = (center - this.x0) / (this.x1 - this.x0);
      this.setView(center - f * span, center - f * span + span);
    }
    setView(a, b) {
      const span = Math.max(1, Math.min(this.n, b - a));
      a = Math.max(0, Math.min(this.n - span, a));
      this.x0 = a; this.x1 = a + span;
      if (!this.pending) {
        this.pending = true;
        requestAnimationFrame(() => { this.pending = false; this.draw(); });
      }
    }
    // The tiles [a, b) of pixel column px, their min, max, worst tile and out-of-memory tiles.
    range(a, b) {
      const v = this.values, mark = this.o.mark, known = this.o.known;
      let mn = Infinity, mx = -Infinity, worst = a, red = 0, best = -Infinity;
      for (let i = a; i < b; i++) {
        if (known && !known[i]) continue;
        const x = v[i];
        if (x < mn) mn = x;
        if (x > mx) mx = x;
        const key = this.o.signed ? Math.abs(x) : x;
        if (key > best) { best = key; worst = i; }
        if (mark && mark[i]) red++;
      }
      return {a: a, b: b, min: mn, max: mx, worst: worst, red: red};
    }
    columnAt(px) {
      if (px < this.left || px > this.left + this.plotW) return null;
      const span = this.x1 - this.x0, per = span / this.plotW;
      const col = Math.floor(px - this.left);
      let a = Math.floor(this.x0 + col * per), b = Math.floor(this.x0 + (col + 1) * per);
      if (b <= a) b = a + 1;
      return this.range(Math.min(a, this.n - 1), Math.min(b, this.n));
    }
    draw() {
      const t0 = performance.now();
      const [ctx, w, h] = setup(this.canvas);
      const left = this.left = 64, top = 8, bottom = 22, plotW = this.plotW = Math.max(10, w - left - 8);
      const plotH = h - top - bottom, lo = this.lo, hi = this.hi;
      const y = (v) => top + plotH * (1 - (v - lo) / (hi - lo));
      const unit = hi - lo >= 4096 ? 1024 : 1, step = niceStep((hi - lo) / unit, 5) * unit;  // round KiB ticks
      ctx.strokeStyle = GRID; ctx.fillStyle = AXIS; ctx.textAlign = "right"; ctx.textBaseline = "middle";
      for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
        ctx.beginPath(); ctx.moveTo(left, y(v) + 0.5); ctx.lineTo(left + plotW, y(v) + 0.5); ctx.stroke();
        ctx.fillText(kib(v), left - 4, y(v));
      }
      const x0 = this.x0, x1 = this.x1, span = x1 - x0, base = y(Math.max(lo, 0));
      const first = Math.floor(x0), last = Math.min(this.n, Math.ceil(x1));
      const xpx = (t) => left + (t - x0) / span * plotW;
      if (last - first <= plotW) {  // a bar per tile
        for (let i = first; i < last; i++) {
          if (this.o.known && !this.o.known[i]) continue;
          const v = this.values[i], xa = xpx(i), xb = xpx(i + 1), bw = Math.max(1, xb - xa - (xb - xa > 4 ? 1 : 0));
          ctx.fillStyle = this.o.mark && this.o.mark[i] ? RED : DARK;
          ctx.fillRect(xa, Math.min(y(v), base), bw, Math.abs(base - y(v)));
        }
      } else {  // a column per pixel: its largest tile (light) over its smallest (dark)
        const per = span / plotW;
        for (let c = 0; c < plotW; c++) {
          const a = Math.floor(x0 + c * per), b = Math.min(this.n, Math.max(a + 1, Math.floor(x0 + (c + 1) * per)));
          const r = this.range(a, b);
          if (r.max === -Infinity) continue;
          if (this.o.signed) {  // gains up, losses down, from the zero line
            ctx.fillStyle = r.red ? RED : DARK;
            if (r.max > 0) ctx.fillRect(left + c, y(r.max), 1, base - y(r.max));
            if (r.min < 0) ctx.fillRect(left + c, base, 1, y(r.min) - base);
            continue;
          }
          ctx.fillStyle = r.red ? RED : LIGHT;
          ctx.fillRect(left + c, y(r.max), 1, base - y(r.max));
          ctx.fillStyle = r.red ? "#a50f15" : DARK;
          ctx.fillRect(left + c, y(r.min), 1, base - y(r.min));
        }
      }
      if (this.o.limit && this.o.limit <= hi) {
        ctx.strokeStyle = RED; ctx.setLineDash([5, 4]); ctx.beginPath();
        ctx.moveTo(left, y(this.o.limit) + 0.5); ctx.lineTo(left + plotW, y(this.o.limit) + 0.5); ctx.stroke();
        ctx.setLineDash([]); ctx.fillStyle = RED; ctx.textAlign = "left"; ctx.textBaseline = "bottom";
        ctx.fillText("tile memory " + kib(this.o.limit), left + 4, y(this.o.limit) - 2);
      }
      const tpi = this.o.tpi;
      if (tpi && span / tpi < 80 && this.n > tpi) {  // IPU boundaries
        ctx.strokeStyle = "#bbb";
        for (let b = Math.ceil(x0 / tpi) * tpi; b < x1; b += tpi) {
          ctx.beginPath(); ctx.moveTo(xpx(b) + 0.5, top); ctx.lineTo(xpx(b) + 0.5, top + plotH); ctx.stroke();
        }
      }
      ctx.strokeStyle = AXIS; ctx.beginPath(); ctx.moveTo(left, base + 0.5); ctx.lineTo(left + plotW, base + 0.5); ctx.stroke();
      ctx.fillStyle = AXIS; ctx.textAlign = "center"; ctx.textBaseline = "top";
      const xs = niceStep(span, Math.max(2, plotW / 90));
      for (let t = Math.ceil(x0 / xs) * xs; t <= x1; t += xs) ctx.fillText(fmt(t), xpx(t), top + plotH + 4);
      const view = this.box.querySelector(".view");
      if (view) view.textContent = "tiles " + fmt(first) + "–" + fmt(last - 1) + " of " + fmt(this.n);
      this.box.dataset.view = first + "-" + (last - 1);
      this.frames.push(performance.now() - t0);
    }
    hover(e) {
      const r = this.columnAt(e.offsetX);
      if (!r || r.max === -Infinity) { hideTip(); return; }
      const lines = this.o.describe(r);
      showTip(e, lines);
    }
  }

  // ---------------------------------------------------------------- heat map: a small grid per IPU
  function ramp(f) {  // light yellow to dark blue
    const stops = [[255, 255, 204], [161, 218, 180], [65, 182, 196], [44, 127, 184], [37, 52, 148]];
    f = Math.max(0, Math.min(1, f)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(f)), t = f - i, a = stops[i], b = stops[i + 1];
    return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
  }
  // One canvas for every IPU (a grid of blocks, one pixel block a tile): hundreds of canvases would make
  // every frame of the tile chart's pan and zoom repaint hundreds of layers.
  function heatMaps(host, s, values, oom, known, pick) {
    const n = values.length, tpi = s.tpi && s.tpi < n ? s.tpi : n, ipus = Math.ceil(n / tpi);
    let scale = s.limit || 0;
    if (!scale) for (let i = 0; i < n; i++) if (values[i] > scale) scale = values[i];
    const cols = Math.ceil(Math.sqrt(tpi * 2)), rows = Math.ceil(tpi / cols);
    const zoom = ipus > 64 ? 1 : ipus > 4 ? 2 : ipus > 2 ? 3 : 6;
    const gap = 6, label = 13, cellW = cols * zoom + gap, cellH = rows * zoom + label + gap;
    const width = Math.max(cellW, host.clientWidth || 1200), across = Math.max(1, Math.floor((width + gap) / cellW));
    const c = el("canvas");
    c.width = Math.min(ipus, across) * cellW; c.height = Math.ceil(ipus / across) * cellH;
    c.style.width = c.width + "px"; c.style.height = c.height + "px";
    const ctx = c.getContext("2d"), img = ctx.createImageData(c.width, c.height), d = img.data;
    const lut = new Uint8Array(3 * 256);  // the colour ramp in 256 steps: no array made per tile
    for (let q = 0; q < 256; q++) lut.set(ramp(q / 255), 3 * q);
    for (let i = 0; i < n; i++) {
      const ipu = Math.floor(i / tpi), k = i - ipu * tpi;
      const x0 = (ipu % across) * cellW + (k % cols) * zoom, y0 = Math.floor(ipu / across) * cellH + Math.floor(k / cols) * zoom;
      let r, g, b;
      if (known && !known[i]) { r = g = b = 200; }
      else if (oom && oom[i]) { r = 214; g = 39; b = 40; }
      else { const q = 3 * Math.max(0, Math.min(255, Math.round(255 * values[i] / scale))); r = lut[q]; g = lut[q + 1]; b = lut[q + 2]; }
      for (let dy = 0; dy < zoom; dy++) {
        let p = 4 * ((y0 + dy) * c.width + x0);
        for (let dx = 0; dx < zoom; dx++, p += 4) { d[p] = r; d[p + 1] = g; d[p + 2] = b; d[p + 3] = 255; }
      }
    }
    ctx.putImageData(img, 0, 0);
    ctx.font = "11px system-ui, sans-serif"; ctx.fillStyle = AXIS; ctx.textBaseline = "top";
    for (let ipu = 0; ipu < ipus; ipu++) {
      ctx.fillText(tpi === n ? "tiles 0–" + fmt(n - 1) : "IPU " + ipu, (ipu % across) * cellW, Math.floor(ipu / across) * cellH + rows * zoom + 1);
    }
    const tileAt = (e) => {
      const ipu = Math.floor(e.offsetY / cellH) * across + Math.floor(e.offsetX / cellW);
      const x = e.offsetX % cellW, y = e.offsetY % cellH;
      if (x >= cols * zoom || y >= rows * zoom || ipu >= ipus || Math.floor(e.offsetX / cellW) >= across) return null;
      const k = Math.floor(y / zoom) * cols + Math.floor(x / zoom), t = ipu * tpi + k;
      return k < tpi && t < n ? t : null;
    };
    c.addEventListener("mousemove", (e) => { const t = tileAt(e); if (t === null) hideTip(); else showTip(e, s.describeTile(t)); });
    c.addEventListener("mouseleave", hideTip);
    c.addEventListener("click", (e) => { const t = tileAt(e); if (t !== null) pick(t); });
    host.append(c, el("p", "hint", "Colour: bytes excluding gaps as a share of " +
      (s.limit ? "tile memory (" + bytes(s.limit) + ")" : "the largest tile") + "; red: out of memory; grey: unknown."));
  }

  // ---------------------------------------------------------------- the By Tile histogram
  function histogram(canvas, bins) {
    const draw = () => {
      const [ctx, w, h] = setup(canvas);
      const left = 64, top = 8, bottom = 22, plotW = w - left - 8, plotH = h - top - bottom;
      let most = 1;
      for (const b of bins) most = Math.max(most, b[2]);
      const step = niceStep(most, 4);
      ctx.fillStyle = AXIS; ctx.strokeStyle = GRID; ctx.textAlign = "right"; ctx.textBaseline = "middle";
      for (let v = 0; v <= most; v += step) {
        const yy = top + plotH * (1 - v / most);
        ctx.beginPath(); ctx.moveTo(left, yy + 0.5); ctx.lineTo(left + plotW, yy + 0.5); ctx.stroke();
        ctx.fillText(fmt(v), left - 4, yy);
      }
      const bw = plotW / bins.length;
      bins.forEach((b, i) => {
        const hh = plotH * b[2] / most;
        ctx.fillStyle = b[3] ? RED : DARK;
        ctx.fillRect(left + i * bw, top + plotH - hh, Math.max(1, bw - (bw > 4 ? 1 : 0)), hh);
      });
      ctx.fillStyle = AXIS; ctx.textAlign = "center"; ctx.textBaseline = "top";
      const every = Math.max(1, Math.ceil(bins.length / (plotW / 70)));
      for (let i = 0; i < bins.length; i += every) ctx.fillText(fmt(bins[i][0]) + " KB", left + (i + 0.5) * bw, top + plotH + 4);
      canvas.onmousemove = (e) => {
        const i = Math.floor((e.offsetX - left) / bw);
        if (i < 0 || i >= bins.length) { hideTip(); return; }
        const b = bins[i];
        showTip(e, [fmt(b[0]) + " – " + fmt(b[1]) + " KB", fmt(b[2]) + " tile(s)",
          b[3] === true ? "holds an out-of-memory tile" : b[3] === null ? "out of memory: cannot say" : ""]);
      };
      canvas.onmouseleave = hideTip;
    };
    draw();
    return draw;
  }

  // ---------------------------------------------------------------- a tile's breakdown
  function kv(table, label, value, cls) {
    const tr = el("tr", cls || "");
    tr.append(el("th", "", label), el("td", "num", value));
    table.append(tr);
  }
  function showTile(s, t) {
    const box = document.getElementById(s.id + "-detail");
    const limit = s.limit, v = s.ex[t], head = el("h4", "", "Tile " + fmt(t) + (s.tpi ? " (IPU " + Math.floor(t / s.tpi) + ")" : ""));
    if (s.names) head.textContent += " · " + s.names[t];
    const main = el("table", "kv");
    if (s.known && !s.known[t]) kv(main, "Bytes", "unknown (its member was skipped)");
    else {
      kv(main, "Excluding gaps", bytes(v) + (limit ? " (" + pct(v, limit) + " of " + bytes(limit) + ")" : ""));
      if (s.inc) kv(main, "Including gaps", bytes(s.inc[t]));
      if (s.oom) kv(main, "Out of memory", s.oom[t] ? (limit && v > limit ? "yes, by " + bytes(v - limit) : "yes") : "no", s.oom[t] ? "oom" : "");
    }
    const parts = [head, main];
    const items = [];
    for (const c of s.colArrays) {
      if (c.p && !c.p[t]) continue;
      items.push([c.name + (c.counted ? "" : " (not counted)"), c.v[t]]);
    }
    items.sort((a, b) => b[1] - a[1]);
    if (items.length) {
      const kind = s.kind.replace(/y$/, "ie") + "s";
      parts.push(el("h5", "", kind.charAt(0).toUpperCase() + kind.slice(1)));
      const tb = el("table", "kv");
      for (const [name, size] of items) kv(tb, name, bytes(size));
      parts.push(tb);
    }
    if (s.regionArrays.length) {
      parts.push(el("h5", "", "Regions"));
      const tb = el("table", "kv");
      for (const r of s.regionArrays) kv(tb, r.name.replace(/_/g, "-"), bytes(r.v[t]));
      parts.push(tb);
    }
    const drilled = s.drilled[String(t)];
    if (drilled) {
      parts.push(el("h5", "", "Symbols" + (drilled.member ? " of " + drilled.member : "")));
      const tb = el("table", "syms");
      const hr = el("tr"); hr.append(el("th", "", "Symbol"), el("th", "", "Section"), el("th", "num", "Bytes")); tb.append(hr);
      for (const [name, section, size] of drilled.symbols) {
        const tr = el("tr"); tr.append(el("td", "sym", name), el("td", "", section), el("td", "num", fmt(size))); tb.append(tr);
      }
      parts.push(tb);
      if (drilled.more) parts.push(el("p", "hint", "+" + fmt(drilled.more) + " more symbols"));
      for (const note of drilled.notes) parts.push(el("p", "hint", note));
    } else if (Object.keys(s.drilled).length) {
      parts.push(el("p", "hint", "Symbols were read for the top tiles and the tiles asked for only (run memreport with --tile " + t + ")."));
    }
    box.replaceChildren(...parts);
    box.dataset.tile = String(t);
  }

  function describeTile(s, t) {
    if (s.known && !s.known[t]) return ["tile " + fmt(t), "bytes unknown (member skipped)"];
    const v = s.ex[t], out = ["tile " + fmt(t) + (s.tpi ? " · IPU " + Math.floor(t / s.tpi) : ""),
      bytes(v) + " excluding gaps" + (s.limit ? " (" + pct(v, s.limit) + ")" : "")];
    if (s.inc) out.push(bytes(s.inc[t]) + " including gaps");
    if (s.oom && s.oom[t]) out.push("OUT OF MEMORY" + (s.limit && v > s.limit ? " by " + bytes(v - s.limit) : ""));
    return out;
  }

  async function reportSection(s) {
    const hist = document.getElementById(s.id + "-hist");
    if (hist && s.hist.length) charts.push({redraw: histogram(hist, s.hist)});
    if (!s.ex) return;
    performance.mark(s.id + " unpack");
    [s.ex, s.inc, s.oom, s.known] = await Promise.all([unpack(s.ex), unpack(s.inc), unpack(s.oom), unpack(s.known)]);
    performance.mark(s.id + " unpacked");
    // The breakdown columns are needed at the first click only: unpacked meanwhile, not before the charts.
    s.colArrays = null;
    s.columns = Promise.all([
      Promise.all(s.cols.map(async (c) => ({name: c.name, counted: c.counted, v: await unpack(c.v), p: await unpack(c.p)}))),
      Promise.all(s.regions.map(async (r) => ({name: r.name, v: await unpack(r.v)})))]).then(([cols, regions]) => {
      s.colArrays = cols; s.regionArrays = regions;
    });
    s.describeTile = (t) => describeTile(s, t);
    const pick = (t) => { if (s.colArrays) showTile(s, t); else s.columns.then(() => showTile(s, t)); };
    const box = document.getElementById(s.id + "-chart");
    const chart = new TileChart(box, s.ex, {limit: s.limit, mark: s.oom, known: s.known, tpi: s.tpi, pick: pick,
      describe: (r) => r.b - r.a === 1 ? describeTile(s, r.a) : ["tiles " + fmt(r.a) + "–" + fmt(r.b - 1) + " (" + fmt(r.b - r.a) + ")",
        "largest " + bytes(r.max) + " (tile " + fmt(r.worst) + ")", "smallest " + bytes(r.min)].concat(r.red ? [fmt(r.red) + " out of memory"] : [])});
    charts.push({redraw: () => chart.draw(), chart: chart});
    performance.mark(s.id + " chart drawn");
    heatMaps(document.getElementById(s.id + "-heat"), s, s.ex, s.oom, s.known, pick);
    performance.mark(s.id + " heat map drawn");
    document.querySelectorAll("a[data-section='" + s.id + "']").forEach((a) => a.addEventListener("click", (e) => {
      e.preventDefault();
      const t = Number(a.dataset.tile);
      pick(t);
      chart.setView(t - 20, t + 20);
      box.scrollIntoView({block: "nearest"});
    }));
  }

  // ---------------------------------------------------------------- the diff: per-tile change
  async function diffSection(s) {
    const ids = await unpack(s.ids), olds = await unpack(s.old), news = await unpack(s.new);
    const delta = new Float64Array(s.n), mark = new Uint8Array(s.n), at = new Map();
    for (let k = 0; k < ids.length; k++) { delta[ids[k]] = news[k] - olds[k]; at.set(ids[k], k); }
    for (const t of s.newly || []) mark[t] = 1;
    const describe = (t) => {
      const k = at.get(t);
      return k === undefined ? ["tile " + fmt(t), "unchanged"] :
        ["tile " + fmt(t), bytes(olds[k]) + " → " + bytes(news[k]), (delta[t] > 0 ? "+" : "") + fmt(delta[t]) + " B"].concat(mark[t] ? ["newly out of memory"] : []);
    };
    const pick = (t) => {
      const box = document.getElementById(s.id + "-detail"), parts = [el("h4", "", "Tile " + fmt(t))];
      for (const line of describe(t).slice(1)) parts.push(el("p", "", line));
      const items = s.below[String(t)];
      if (items) {
        const tb = el("table", "syms"), hr = el("tr");
        hr.append(el("th", "", "Kind"), el("th", "", "Name"), el("th", "num", "Old"), el("th", "num", "New"), el("th", "num", "Change"));
        tb.append(hr);
        for (const [kind, name, o, w] of items) {
          const tr = el("tr");
          tr.append(el("td", "", kind), el("td", "sym", name), el("td", "num", o === null ? "absent" : fmt(o)),
            el("td", "num", w === null ? "absent" : fmt(w)), el("td", "num", o === null || w === null ? "" : (w - o > 0 ? "+" : "") + fmt(w - o)));
          tb.append(tr);
        }
        parts.push(el("h5", "", "Below the tile"), tb);
      }
      box.replaceChildren(...parts);
      box.dataset.tile = String(t);
    };
    const box = document.getElementById(s.id + "-chart");
    const chart = new TileChart(box, delta, {limit: null, mark: mark, known: null, tpi: s.tpi, signed: true, pick: pick,
      describe: (r) => r.b - r.a === 1 ? describe(r.a) : ["tiles " + fmt(r.a) + "–" + fmt(r.b - 1),
        "largest change " + fmt(r.max) + " B, smallest " + fmt(r.min) + " B", "most changed: tile " + fmt(r.worst)]});
    charts.push({redraw: () => chart.draw(), chart: chart});
    document.querySelectorAll("a[data-section='" + s.id + "']").forEach((a) => a.addEventListener("click", (e) => {
      e.preventDefault(); const t = Number(a.dataset.tile); pick(t); chart.setView(t - 20, t + 20);
    }));
  }

  // ---------------------------------------------------------------- the compiles timeline
  function timeline(canvas, rows) {
    const COLORS = {compiled: "#e6550d", precompiled: "#fd8d3c", loaded: "#31a354", skipped: "#9e9e9e", load: "#3182bd"};
    canvas.style.height = Math.max(80, Math.min(600, 18 * rows.length + 30)) + "px";
    const draw = () => {
      const [ctx, w, h] = setup(canvas);
      const left = 64, right = 8, plotW = w - left - right, rowH = Math.max(4, Math.min(18, (h - 24) / Math.max(1, rows.length)));
      let end = 0;
      for (const r of rows) end = Math.max(end, r.start + (r.dur || 0));
      end = end || 1;
      const step = niceStep(end, 6);
      ctx.fillStyle = AXIS; ctx.strokeStyle = GRID; ctx.textAlign = "center"; ctx.textBaseline = "top";
      for (let v = 0; v <= end; v += step) {
        const x = left + plotW * v / end;
        ctx.beginPath(); ctx.moveTo(x + 0.5, 0); ctx.lineTo(x + 0.5, h - 20); ctx.stroke();
        ctx.fillText(num(v, 1) + " s", x, h - 18);
      }
      rows.forEach((r, i) => {
        const yy = 4 + i * rowH;
        ctx.fillStyle = COLORS[r.result] || "#bbb";
        const x = left + plotW * r.start / end, ww = r.dur === null ? 3 : Math.max(2, plotW * r.dur / end);
        ctx.fillRect(x, yy, ww, rowH - 2);
        if (r.cache === "miss") { ctx.strokeStyle = RED; ctx.strokeRect(x + 0.5, yy + 0.5, ww - 1, rowH - 3); }
      });
      ctx.textAlign = "right"; ctx.textBaseline = "middle"; ctx.fillStyle = AXIS;
      rows.forEach((r, i) => { if (rowH >= 10) ctx.fillText("#" + (i + 1), left - 4, 4 + i * rowH + rowH / 2); });
      canvas.onmousemove = (e) => {
        const i = Math.floor((e.offsetY - 4) / rowH);
        if (i < 0 || i >= rows.length) { hideTip(); return; }
        const r = rows[i];
        showTip(e, [r.ref, r.what, r.result + (r.cache ? ", cache " + r.cache : ""), r.dur === null ? "duration unknown" : r.dur.toFixed(1) + " s"]);
      };
      canvas.onmouseleave = hideTip;
    };
    draw();
    return draw;
  }

  // ---------------------------------------------------------------- benchmark: pan and zoom, timed by the page
  async function bench(frames) {
    frames = frames || 120;
    const c = charts.find((x) => x.chart);
    if (!c) return null;
    const ch = c.chart, times = [];
    const t0 = performance.now();
    for (let i = 0; i < frames; i++) {
      await new Promise((r) => requestAnimationFrame(r));
      const f = i % 60, span = ch.n * Math.pow(0.85, f < 30 ? f : 60 - f);
      const a = (ch.n - span) * (0.5 + 0.4 * Math.sin(i / 9));
      const s = performance.now();
      ch.x0 = Math.max(0, a); ch.x1 = Math.min(ch.n, ch.x0 + Math.max(1, span));
      ch.draw();
      times.push(performance.now() - s);
    }
    const total = performance.now() - t0;
    times.sort((x, y) => x - y);
    ch.setView(0, ch.n);
    return {frames: frames, fps: 1000 * frames / total, draw_ms_median: times[frames >> 1],
      draw_ms_p95: times[Math.floor(frames * 0.95)], draw_ms_max: times[frames - 1], tiles: ch.n};
  }

  async function main() {
    const t0 = performance.now();
    performance.mark("script");
    for (const s of DATA.sections) {
      if (DATA.kind === "report") await reportSection(s);
      else if (DATA.kind === "diff") await diffSection(s);
      else if (DATA.kind === "compiles") {
        const c = document.getElementById(s.id + "-timeline");
        if (c && s.rows.length) charts.push({redraw: timeline(c, s.rows)});
      }
    }
    let timer = null;
    window.addEventListener("resize", () => { clearTimeout(timer); timer = setTimeout(() => charts.forEach((c) => c.redraw()), 100); });
    // ready_ms: drawing, from the script's start; ready_at_ms: from the start of navigation (the page's own clock)
    window.__memreport = {bench: bench, charts: charts, ready_ms: performance.now() - t0, ready_at_ms: performance.now(),
      columns: Promise.all(DATA.sections.map((s) => s.columns))};
    document.body.setAttribute("data-ready", "");
  }
  main().catch((e) => { document.body.setAttribute("data-error", String(e)); throw e; });
})();
