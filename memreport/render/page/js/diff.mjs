// The diff's section: the change on every tile (gains up, losses down; red: newly out of memory), and what
// changed below a tile on a click.
import { unpack } from "./data.mjs";
import { el } from "./dom.mjs";
import { fill } from "./format.mjs";
import { drawLiveness } from "./liveness.mjs";
import { TileChart } from "./tilechart.mjs";

export async function diffSection(s, charts) {
  const L = s.labels, F = s.format;
  const [ids, olds, news] = await Promise.all([unpack(s.tileIds), unpack(s.oldBytes), unpack(s.newBytes)]);
  const delta = new Float64Array(s.count), mark = new Uint8Array(s.count), at = new Map();
  for (let k = 0; k < ids.length; k++) { delta[ids[k]] = news[k] - olds[k]; at.set(ids[k], k); }
  for (const t of s.newlyOutOfMemory) mark[t] = 1;
  const describe = (t) => {
    const k = at.get(t), head = fill(L.tip_tile, {tile: F.count(t)});
    if (k === undefined) return [head, L.unchanged];
    return [head, fill(L.diff_change, {old: F.bytes(olds[k]), new: F.bytes(news[k])}), F.signedBytes(delta[t]),
      mark[t] ? L.newly_out_of_memory : ""];
  };
  const pick = (t) => {
    const box = document.getElementById(s.id + "-detail"), parts = [el("h4", "", fill(L.panel_tile, {tile: F.count(t)}))];
    for (const line of describe(t).slice(1)) if (line) parts.push(el("p", "", line));
    const items = s.below[String(t)];
    if (items) {
      const tb = el("table", "syms"), head = el("tr");
      head.append(el("th", "", L.kind), el("th", "", L.name), el("th", "num", L.old), el("th", "num", L.new),
        el("th", "num", L.change));
      tb.append(head);
      for (const i of items) {
        const tr = el("tr");
        tr.append(el("td", "", i.kind), el("td", "sym", i.name), el("td", "num", i.old === null ? L.absent : F.count(i.old)),
          el("td", "num", i.new === null ? L.absent : F.count(i.new)),
          el("td", "num", i.old === null || i.new === null ? "" : F.signed(i.new - i.old)));
        tb.append(tr);
      }
      parts.push(el("h5", "", L.below_the_tile), tb);
    }
    box.replaceChildren(...parts);
    box.dataset.tile = String(t);
  };
  const box = document.getElementById(s.id + "-chart");
  const chart = new TileChart(box, delta, {limit: null, mark: mark, known: null, tilesPerIpu: s.tilesPerIpu, signed: true,
    pick: pick, labels: L, format: F,
    describe: (r) => (r.b - r.a === 1 ? describe(r.a) : [fill(L.diff_range, {first: F.count(r.a), last: F.count(r.b - 1)}),
      fill(L.diff_range_change, {largest: F.signedBytes(r.max), smallest: F.signedBytes(r.min)}),
      fill(L.most_changed, {tile: F.count(r.worst)})])});
  charts.push({redraw: () => chart.draw(), chart: chart});
  const live = document.getElementById(s.id + "-liveness");
  if (live && s.liveness.length) charts.push({redraw: drawLiveness(live, s.liveness, L, F)});
  document.querySelectorAll("a[data-section='" + s.id + "']").forEach((a) => a.addEventListener("click", (e) => {
    e.preventDefault();
    const t = Number(a.dataset.tile);
    pick(t);
    chart.setView(t - 20, t + 20);
  }));
}
