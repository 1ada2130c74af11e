// memreport's page: draws the charts from the data block, with no request of any kind (see document.py). Each
// section is drawn on its own: one that fails says so where it stands, and the others are drawn all the same.
import { readPage } from "./data.mjs";
import { diffSection } from "./diff.mjs";
import { el } from "./dom.mjs";
import { fill, formatter } from "./format.mjs";
import { reportSection } from "./report.mjs";
import { compilesSection } from "./timeline.mjs";
import { trendSection } from "./trend.mjs";

const DRAW = {report: reportSection, diff: diffSection, compiles: compilesSection, trend: trendSection};

function failed(id, error, labels) {
  console.error(error);
  const where = document.getElementById(id) || document.querySelector("main") || document.body;
  const text = labels && labels.failed ? fill(labels.failed, {error: String((error && error.message) || error)})
    : String(error);
  const note = el("p", "failed", text), heading = where.querySelector("h2");
  if (heading) heading.after(note); else where.prepend(note);
  where.dataset.failed = "";
}

async function main() {
  const t0 = performance.now(), charts = [];
  performance.mark("script");
  let raw = null;
  try {
    raw = JSON.parse(document.getElementById("memreport-data").textContent);
    const page = readPage(raw), format = formatter(page.labels);
    for (const s of page.sections) {
      try {
        if (s.error) throw s.error;
        s.labels = page.labels; s.format = format;
        await DRAW[page.kind](s, charts);
      } catch (error) {
        failed(s.id, error, page.labels);
      }
    }
  } catch (error) {
    failed("", error, raw && raw.labels);
  }
  let timer = null;
  window.addEventListener("resize", () => {
    clearTimeout(timer);
    timer = setTimeout(() => charts.forEach((c) => c.redraw()), 100);
  });
  // For the tests and scripts/bench_page.py, read only: when the page was ready (ready_ms: drawing, from the
  // script's start; ready_at_ms: from the start of navigation) and its tile charts.
  window.__memreport = Object.freeze({ready_ms: performance.now() - t0, ready_at_ms: performance.now(),
    charts: Object.freeze(charts.filter((c) => c.chart).map((c) => c.chart))});
  document.body.setAttribute("data-ready", "");
}

main();
