// Numbers as the page writes them, and templates filled: the words come from the labels, never from here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { decimal, fill, formatter, group, integer, signed } from "../../../../memreport/render/page/js/format.mjs";

const LABELS = JSON.parse(readFileSync(new URL("./fixtures/contract.json", import.meta.url), "utf8")).labels;

test("groups thousands as Python's {:,} does", () => {
  for (const n of [0, 7, 999, 1000, 12345, 638976, 376832, 1234567890, 2 ** 53]) {
    assert.equal(group(String(n)), n.toLocaleString("en-US"));
  }
  assert.equal(integer(-1234.6), "-1,235");
  assert.equal(integer(-0.2), "0");  // never "-0"
  assert.equal(decimal(1536 / 1024, 1), "1.5");
  assert.equal(decimal(624, 1), "624");  // trailing zeros dropped
  assert.equal(decimal(-0.04, 1), "0");
  assert.equal(signed(150000), "+150,000");
  assert.equal(signed(-6144), "-6,144");
  assert.equal(signed(0), "0");
});

test("fills a template's placeholders and leaves an unknown one as written", () => {
  assert.equal(fill("tiles {first}–{last} of {n}", {first: "0", last: "1,471", n: "1,472"}), "tiles 0–1,471 of 1,472");
  assert.equal(fill("{a} and {b}", {a: 1}), "1 and {b}");
  assert.equal(fill("{n}{n}", {n: 0}), "00");
});

test("the formatters speak the labels' words", () => {
  const f = formatter(LABELS);
  assert.equal(f.bytes(788976), "788,976 B");
  assert.equal(f.bytes(null), "unknown");
  assert.equal(f.count(undefined), "unknown");
  assert.equal(f.kib(638976), "624 KiB");
  assert.equal(f.kib(1536), "1.5 KiB");
  assert.equal(f.kib(1000), "1,000 B");
  assert.equal(f.share(788976, 638976), "123.5%");
  assert.equal(f.signedBytes(-2048), "-2,048 B");
  assert.equal(f.seconds(75.253, 1), "75.3 s");
  assert.equal(f.tiles(1), "1 tile");
  assert.equal(f.tiles(1215), "1,215 tiles");
  const other = formatter({...LABELS, bytes: "{n} octets", unknown: "inconnu"});
  assert.equal(other.bytes(5), "5 octets");
  assert.equal(other.bytes(null), "inconnu");
});
