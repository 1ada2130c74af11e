// A report's section: the chart of every tile, the heat map, the By Tile histogram, a tile's panel on a click.
import { unpack } from "./data.mjs";
import { emptyCanvas } from "./dom.mjs";
import { drawHeatMap } from "./heatmap.mjs";
import { drawHistogram } from "./histogram.mjs";
import { drawLiveness } from "./liveness.mjs";
import { describeRange, describeTile, showTile } from "./panel.mjs";
import { TileChart } from "./tilechart.mjs";

export async function reportSection(s, charts) {
  const hist = document.getElementById(s.id + "-hist");
  if (hist && s.histogram.length) charts.push({redraw: drawHistogram(hist, s)});
  else if (hist) emptyCanvas(hist, s.labels.no_tiles);
  const live = document.getElementById(s.id + "-liveness");
  if (live && s.liveness.length) charts.push({redraw: drawLiveness(live, s.liveness, s.labels, s.format)});
  const t = s.tiles;
  if (!t) return;
  performance.mark(s.id + ":unpack");
  [s.excludingGaps, s.includingGaps, s.outOfMemory, s.known] = await Promise.all(
    [unpack(t.excludingGaps), unpack(t.includingGaps), unpack(t.outOfMemory), unpack(t.known)]);
  s.names = t.names;
  performance.mark(s.id + ":unpacked");
  // The breakdown columns are needed at the first click only: unpacked meanwhile, not before the charts.
  const columns = Promise.all([
    Promise.all(t.breakdown.map(async (c) => ({name: c.name, counted: c.counted, values: await unpack(c.values),
      present: await unpack(c.present)}))),
    Promise.all(t.regions.map(async (r) => ({name: r.name, values: await unpack(r.values)})))]).then(([cols, regions]) => {
    s.breakdownColumns = cols; s.regionColumns = regions;
  });
  const pick = (tile) => columns.then(() => showTile(s, tile));
  const box = document.getElementById(s.id + "-chart");
  const chart = new TileChart(box, s.excludingGaps, {limit: s.limit, mark: s.outOfMemory, known: s.known,
    tilesPerIpu: s.tilesPerIpu, pick: pick, describe: (r) => describeRange(s, r), labels: s.labels, format: s.format});
  charts.push({redraw: () => chart.draw(), chart: chart});
  performance.mark(s.id + ":chart");
  drawHeatMap(document.getElementById(s.id + "-heat"), s, s.excludingGaps, s.outOfMemory, s.known, pick,
    (tile) => describeTile(s, tile));
  performance.mark(s.id + ":heat-map");
  document.querySelectorAll("a[data-section='" + s.id + "']").forEach((a) => a.addEventListener("click", (e) => {
    e.preventDefault();
    const tile = Number(a.dataset.tile);
    pick(tile);
    chart.setView(tile - 20, tile + 20);
    box.scrollIntoView({block: "nearest"});
  }));
}
