// A tile in words: the lines of the tip over a tile, and the panel a click opens (its bytes, breakdown,
// regions and symbols). Every word is a label from the page's data.
import { el } from "./dom.mjs";
import { fill } from "./format.mjs";

// s: a report section with its arrays unpacked (excludingGaps, includingGaps, outOfMemory, known), its labels
// and format.
function ipuOf(s, t) {
  return s.tilesPerIpu ? s.format.count(Math.floor(t / s.tilesPerIpu)) : null;
}

export function describeTile(s, t) {
  const L = s.labels, F = s.format, ipu = ipuOf(s, t);
  const head = ipu === null ? fill(L.tip_tile, {tile: F.count(t)}) : fill(L.tip_tile_ipu, {tile: F.count(t), ipu: ipu});
  if (s.known && !s.known[t]) return [head, L.tip_unknown];
  const v = s.excludingGaps[t], out = [head, s.limit
    ? fill(L.tip_excluding_share, {size: F.bytes(v), share: F.share(v, s.limit)})
    : fill(L.tip_excluding, {size: F.bytes(v)})];
  if (s.includingGaps) out.push(fill(L.tip_including, {size: F.bytes(s.includingGaps[t])}));
  if (s.outOfMemory && s.outOfMemory[t]) {
    out.push(s.limit && v > s.limit ? fill(L.tip_out_of_memory_by, {size: F.bytes(v - s.limit)}) : L.tip_out_of_memory);
  }
  return out;
}

// The lines of the tip over several tiles (a pixel column of the chart).
export function describeRange(s, r) {
  const L = s.labels, F = s.format;
  if (r.b - r.a === 1) return describeTile(s, r.a);
  const out = [fill(L.range_tiles, {first: F.count(r.a), last: F.count(r.b - 1), n: F.count(r.b - r.a)}),
    fill(L.range_largest, {size: F.bytes(r.max), tile: F.count(r.worst)}), fill(L.range_smallest, {size: F.bytes(r.min)})];
  if (r.red) out.push(fill(L.range_out_of_memory, {n: F.count(r.red)}));
  return out;
}

function row(table, label, value, cls) {
  const tr = el("tr", cls || "");
  tr.append(el("th", "", label), el("td", "num", value));
  table.append(tr);
}

function symbolsTable(L, F, symbols) {
  const tb = el("table", "syms"), head = el("tr");
  head.append(el("th", "", L.symbol), el("th", "", L.section), el("th", "num", L.size));
  tb.append(head);
  for (const y of symbols) {
    const tr = el("tr");
    tr.append(el("td", "sym", y.name), el("td", "", y.section), el("td", "num", F.count(y.bytes)));
    tb.append(tr);
  }
  return tb;
}

// The panel of tile t (s.breakdownColumns and s.regionColumns unpacked).
export function showTile(s, t) {
  const L = s.labels, F = s.format, box = document.getElementById(s.id + "-detail"), ipu = ipuOf(s, t);
  let title = ipu === null ? fill(L.panel_tile, {tile: F.count(t)}) : fill(L.panel_tile_ipu, {tile: F.count(t), ipu: ipu});
  if (s.names) title = fill(L.panel_named, {title: title, name: s.names[t]});
  const main = el("table", "kv"), parts = [el("h4", "", title), main];
  if (s.known && !s.known[t]) row(main, L.panel_bytes, L.panel_bytes_unknown);
  else {
    const v = s.excludingGaps[t];
    row(main, L.panel_excluding, s.limit ? fill(L.panel_share, {size: F.bytes(v), share: F.share(v, s.limit),
      limit: F.bytes(s.limit)}) : F.bytes(v));
    if (s.includingGaps) row(main, L.panel_including, F.bytes(s.includingGaps[t]));
    if (s.outOfMemory) {
      const over = s.outOfMemory[t];
      row(main, L.panel_out_of_memory, over ? (s.limit && v > s.limit ? fill(L.yes_by, {size: F.bytes(v - s.limit)}) : L.yes)
        : L.no, over ? "oom" : "");
    }
  }
  const items = [];
  for (const c of s.breakdownColumns) {
    if (c.present && !c.present[t]) continue;
    items.push([c.counted ? c.name : fill(L.not_counted, {name: c.name}), c.values[t]]);
  }
  items.sort((a, b) => b[1] - a[1]);
  if (items.length) {
    const tb = el("table", "kv");
    for (const [name, size] of items) row(tb, name, F.bytes(size));
    parts.push(el("h5", "", s.breakdownHeading), tb);
  }
  if (s.regionColumns.length) {
    const tb = el("table", "kv");
    for (const r of s.regionColumns) row(tb, r.name, F.bytes(r.values[t]));
    parts.push(el("h5", "", L.regions), tb);
  }
  const plan = s.plans[String(t)];
  if (plan) {  // what to move off it to fit: the plan in words, its items
    parts.push(el("h5", "", L.fit_plan), el("p", "plan", plan.sentence));
    if (plan.items.length) {
      const tb = el("table", "plan"), head = el("tr");
      head.append(el("th", "", L.name), el("th", "", L.kind), el("th", "", L.item_class), el("th", "num", L.size),
        el("th", "num", L.item_frees));
      tb.append(head);
      for (const i of plan.items) {
        const tr = el("tr");
        tr.append(el("td", "sym", i.name), el("td", "", i.kind), el("td", "", i.cls), el("td", "num", F.count(i.bytes)),
          el("td", "num", F.count(i.frees)));
        tb.append(tr);
      }
      parts.push(tb);
    }
  } else if (s.plansMore && s.outOfMemory && s.outOfMemory[t]) {
    parts.push(el("p", "hint", fill(L.more_plans, {n: F.count(s.plansMore)})));
  }
  const drilled = s.drilled[String(t)];
  if (drilled) {
    parts.push(el("h5", "", drilled.member === null ? L.symbols : fill(L.symbols_of, {member: drilled.member})),
      symbolsTable(L, F, drilled.symbols));
    if (drilled.more) parts.push(el("p", "hint", fill(L.more_symbols, {n: F.count(drilled.more)})));
    for (const note of drilled.notes) parts.push(el("p", "hint", note));
  } else if (Object.keys(s.drilled).length) {
    parts.push(el("p", "hint", fill(L.symbols_elsewhere, {tile: String(t)})));
  }
  box.replaceChildren(...parts);
  box.dataset.tile = String(t);
}
