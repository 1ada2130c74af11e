// The data block as the script reads it: packed arrays unpacked from what Python packed, and the contract held
// from both sides: data.mjs reads every key contract.py declares and no other, and every label the modules
// show is declared (and used).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { readPage, unpack } from "../../../../memreport/render/page/js/data.mjs";

const fixture = (name) => JSON.parse(readFileSync(new URL("./fixtures/" + name, import.meta.url), "utf8"));
const CONTRACT = fixture("contract.json"), PAGES = fixture("pages.json");
const MODULES = new URL("../../../../memreport/render/page/js/", import.meta.url);

test("unpacks every type Python packs, byte shuffle and gzip undone", async () => {
  const cases = fixture("packed.json");
  assert.deepEqual(cases.map((c) => c.packed.type), ["u8", "u8", "u16", "u32", "i32", "f64"]);
  for (const c of cases) {
    const values = await unpack(c.packed);
    assert.deepEqual(Array.from(values), c.values, c.packed.type);
  }
  assert.equal(await unpack(null), null);
  await assert.rejects(unpack({type: "u64", data: cases[1].packed.data}), /unknown packed type u64/);
});

// A proxy over raw data that records each key read, by its path in the declaration, and refuses keys it lacks.
function recorder(value, type, path, seen) {
  if (value === null || typeof value !== "object") return value;
  const inner = type.type === "or null" ? type.of : type;
  if (inner.type === "object") {
    return new Proxy(value, {get(target, key) {
      if (typeof key !== "string") return target[key];
      const field = inner.fields[key];
      if (!field) throw new Error("read an undeclared key: " + path + "." + key);
      seen.add(path + "." + key);
      return recorder(target[key], field, path + "." + key, seen);
    }});
  }
  if (inner.type === "list" || inner.type === "map") {
    const part = inner.type === "list" ? "[]" : "{}";
    return new Proxy(value, {get(target, key) {
      const item = target[key];
      if (typeof key !== "string" || (inner.type === "list" && !/^\d+$/.test(key))) return item;
      return recorder(item, inner.of, path + part, seen);
    }});
  }
  return value;
}

// Every key path the declaration holds, for one page kind.
function declared(type, path, out) {
  const inner = type.type === "or null" ? type.of : type;
  if (inner.type === "object") for (const [k, f] of Object.entries(inner.fields)) { out.add(path + "." + k); declared(f, path + "." + k, out); }
  if (inner.type === "list") declared(inner.of, path + "[]", out);
  if (inner.type === "map") declared(inner.of, path + "{}", out);
  return out;
}

test("reads every key the contract declares for each page kind, and no other", () => {
  const byKind = {report: ["report", "summary"], diff: ["diff", "diff_liveness"], compiles: ["compiles"],
                  trend: ["trend"]};
  for (const [kind, pages] of Object.entries(byKind)) {
    const seen = new Set(), expected = declared(CONTRACT.kinds[kind], "page", new Set());
    for (const name of pages) {
      const page = readPage(recorder(PAGES[name], CONTRACT.kinds[kind], "page", seen));
      assert.equal(page.kind, kind);
      assert.deepEqual(page.sections.filter((s) => s.error).map((s) => String(s.error)), []);
    }
    assert.deepEqual([...expected].filter((p) => !seen.has(p)), [], kind + ": declared but never read");
    assert.deepEqual([...seen].filter((p) => !expected.has(p)), [], kind + ": read but not declared");
  }
});

test("a key the contract lacks is refused, and one unreadable section leaves the others", () => {
  const narrower = structuredClone(CONTRACT.kinds.report);  // a declaration without a key data.mjs reads
  delete narrower.fields.sections.of.fields.tiles_per_ipu;
  assert.match(String(readPage(recorder(PAGES.report, narrower, "page", new Set())).sections[0].error),
    /undeclared key: page.sections\[\].tiles_per_ipu/);
  const broken = structuredClone(PAGES.report);
  broken.sections = [{id: "r0", tiles: null}, PAGES.report.sections[0]];
  const page = readPage(broken);
  assert.equal(page.sections[0].id, "r0");
  assert.ok(page.sections[0].error instanceof TypeError);
  assert.equal(page.sections[1].tiles.count, 8);
  assert.throws(() => readPage({kind: "other", labels: {}, sections: []}), /unknown page kind other/);
});

test("every label the modules show is declared, and every declared label is shown", () => {
  const used = new Set();
  for (const file of readdirSync(MODULES).filter((f) => f.endsWith(".mjs"))) {
    const text = readFileSync(new URL(file, MODULES), "utf8");
    for (const m of text.matchAll(/\b(?:labels|L)\.([a-z_]+)/g)) used.add(m[1]);
  }
  const labels = Object.keys(CONTRACT.labels);
  assert.deepEqual([...used].filter((l) => !labels.includes(l)).sort(), []);
  assert.deepEqual(labels.filter((l) => !used.has(l)).sort(), []);
  assert.deepEqual(PAGES.report.labels, CONTRACT.labels);
});

test("only data.mjs reads the data block, and no module composes an English sentence", () => {
  for (const file of readdirSync(MODULES).filter((f) => f.endsWith(".mjs"))) {
    // comments, and the messages of errors that are bugs (the page shows them inside its "failed" label), aside
    const text = readFileSync(new URL(file, MODULES), "utf8").replace(/\/\/ .*$/gm, "").replace(/new Error\("[^"]*"/g, "");
    if (file !== "main.mjs") assert.doesNotMatch(text, /memreport-data/, file);
    // a string literal holding two English words side by side is a sentence the script wrote itself
    const strings = [...text.matchAll(/"([^"\\]*)"/g)].map((m) => m[1]).filter((s) => /[a-z]{2,} [a-z]{2,}/i.test(s));
    assert.deepEqual(strings.filter((s) => !/^(?:\d+px |rgb)/.test(s)), [], file);
  }
});
