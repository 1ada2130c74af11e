// What every drawing module needs of the document: elements, the tip that follows the pointer, a canvas sized
// to its box at the screen's pixel ratio.

export const COLOURS = {red: "#d62728", darkRed: "#a50f15", light: "#9ecae1", dark: "#3182bd", axis: "#555",
  grid: "#e4e4e4", boundary: "#bbb", maybe: "#fdd49e", unknown: "#c8c8c8"};
export const FONT = "11px system-ui, sans-serif";

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export function showTip(evt, lines) {
  const tip = document.getElementById("tip");
  tip.replaceChildren(...lines.filter((l) => l).map((l) => el("div", "", l)));
  tip.hidden = false;
  const x = Math.max(4, Math.min(evt.clientX + 14, window.innerWidth - tip.offsetWidth - 8));
  tip.style.left = x + "px";
  tip.style.top = (evt.clientY + 14) + "px";
}

export function hideTip() {
  document.getElementById("tip").hidden = true;
}

// The canvas's 2D context, cleared, in CSS pixels: [ctx, width, height].
export function setupCanvas(canvas) {
  const dpr = window.devicePixelRatio || 1, w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  ctx.font = FONT;
  return [ctx, w, h];
}

// The widest of these labels, in pixels.
export function widest(ctx, labels) {
  let most = 0;
  for (const l of labels) most = Math.max(most, ctx.measureText(l).width);
  return most;
}

// A message where a chart would be (no tiles, nothing to draw).
export function emptyCanvas(canvas, text) {
  const [ctx, w, h] = setupCanvas(canvas);
  ctx.fillStyle = COLOURS.axis; ctx.textAlign = "center"; ctx.textBaseline = "middle";
  ctx.fillText(text, w / 2, h / 2);
}
