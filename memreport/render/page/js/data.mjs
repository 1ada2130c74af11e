// The page's data block, read in one place: every key the script uses is read here, from the declaration in
// contract.py (tests/render/page/js/data.test.mjs holds this module to it), into plain objects the drawing
// modules take. Per-tile arrays stay packed until a section unpacks them (unpack).

const TYPES = {u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array, f64: Float64Array};

// A packed array (document.py's pack: little-endian values, bytes shuffled by position, gzip, base64) as a
// typed array, by the browser's own DecompressionStream; null stays null.
export async function unpack(packed) {
  if (!packed) return null;
  const raw = atob(packed.data), bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const b = new Uint8Array(await new Response(stream).arrayBuffer());
  const T = TYPES[packed.type];
  if (!T) throw new Error("unknown packed type " + packed.type);
  const k = T.BYTES_PER_ELEMENT, n = b.length / k, out = new Uint8Array(b.length);
  for (let j = 0; j < k; j++) {  // unshuffle: byte j of every value was stored together
    const from = j * n;
    for (let i = 0, to = j; i < n; i++, to += k) out[to] = b[from + i];
  }
  return new T(out.buffer);
}

function packed(p) {
  return p === null ? null : {type: p.type, data: p.data};
}

function entries(map, read) {
  const out = {};
  for (const [key, value] of Object.entries(map)) out[key] = read(value);
  return out;
}

function tiles(t) {
  if (t === null) return null;
  return {
    count: t.count, excludingGaps: packed(t.excluding_gaps), includingGaps: packed(t.including_gaps),
    outOfMemory: packed(t.out_of_memory), known: packed(t.known), names: t.names === null ? null : [...t.names],
    breakdown: t.breakdown.map((c) => ({name: c.name, counted: c.counted, values: packed(c.values),
      present: packed(c.present)})),
    regions: t.regions.map((r) => ({name: r.name, values: packed(r.values)})),
  };
}

function curves(list) {
  return list.map((c) => ({label: c.label, live: [...c.live], steps: [...c.steps], names: [...c.names], peak: c.peak,
    limit: c.limit, description: c.description}));
}

function reportSection(s) {
  return {
    id: s.id, limit: s.bytes_per_tile, tilesPerIpu: s.tiles_per_ipu, heatTilesPerIpu: s.heat_tiles_per_ipu,
    breakdownHeading: s.breakdown_heading,
    histogram: s.histogram.map((b) => ({low: b.low_kib, high: b.high_kib, count: b.count, outOfMemory: b.out_of_memory})),
    drilled: entries(s.drilled, (d) => ({member: d.member, more: d.more, notes: [...d.notes],
      symbols: d.symbols.map((y) => ({name: y.name, section: y.section, bytes: y.bytes}))})),
    tiles: tiles(s.tiles),
    plans: entries(s.plans, (p) => ({sentence: p.sentence, items: p.items.map((i) => ({name: i.name, kind: i.kind,
      cls: i.class, bytes: i.bytes, frees: i.frees}))})),
    plansMore: s.plans_more, liveness: curves(s.liveness),
  };
}

function diffSection(s) {
  return {
    id: s.id, tilesPerIpu: s.tiles_per_ipu, count: s.count, tileIds: packed(s.tile_ids),
    oldBytes: packed(s.old_bytes), newBytes: packed(s.new_bytes), newlyOutOfMemory: [...s.newly_out_of_memory],
    below: entries(s.below, (items) => items.map((i) => ({kind: i.kind, name: i.name, old: i.old, new: i.new}))),
    liveness: curves(s.liveness),
  };
}

function compilesSection(s) {
  return {
    id: s.id,
    rows: s.rows.map((r) => ({label: r.label, ref: r.ref, what: r.what, result: r.result, cache: r.cache,
      duration: r.duration_s, start: r.start_s})),
  };
}

function trendSection(s) {
  return {
    id: s.id, builds: [...s.builds], worstTiles: [...s.worst_tiles],
    charts: s.charts.map((c) => ({key: c.key, unit: c.unit, values: [...c.values], limit: [...c.limit],
      atLeast: [...c.at_least]})),
  };
}

const SECTIONS = {report: reportSection, diff: diffSection, compiles: compilesSection, trend: trendSection};

// The whole block: its kind, its labels (every word the script shows) and its sections; a section that cannot
// be read is {id, error}, and the others are read all the same.
export function readPage(raw) {
  const read = SECTIONS[raw.kind];
  if (!read) throw new Error("unknown page kind " + raw.kind);
  return {kind: raw.kind, labels: {...raw.labels}, sections: raw.sections.map((s) => {
    try { return read(s); } catch (error) { return {id: String(s && s.id), error: error}; }
  })};
}
