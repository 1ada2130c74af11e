// Numbers as the page writes them, and the labels' templates filled with them. The words themselves come from
// the page's data (contract.py's LABELS): this module composes no sentence.

// Thousands separators written out here: the first toLocaleString of a page loads the locale data, 60-150 ms of
// a page that should be ready within a second.
export function group(digits) {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

// v rounded to at most `places` decimals, trailing zeros dropped (as toLocaleString writes it).
export function decimal(v, places) {
  const text = Math.abs(v).toFixed(places), [whole, frac] = text.split(".");
  const rest = frac ? frac.replace(/0+$/, "") : "", sign = v < 0 && Number(text) !== 0 ? "-" : "";
  return sign + group(whole) + (rest ? "." + rest : "");
}

export function integer(v) {
  return decimal(Math.round(v) || 0, 0);
}

export function signed(v) {
  return (v > 0 ? "+" : "") + integer(v);
}

// A template with its {placeholders} filled; a placeholder without a value stays as written (a bug shows).
export function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
}

// The formatters of one page, in its labels' words.
export function formatter(labels) {
  const known = (v) => v !== null && v !== undefined;
  const bytes = (v) => (known(v) ? fill(labels.bytes, {n: integer(v)}) : labels.unknown);
  return {
    count: (v) => (known(v) ? integer(v) : labels.unknown),
    bytes: bytes,
    signed: signed,
    signedBytes: (v) => fill(labels.bytes, {n: signed(v)}),
    // KiB to one decimal from 1 KiB up (an axis of whole KiB steps never repeats a label), bytes below
    kib: (v) => (Math.abs(v) >= 1024 ? fill(labels.kib, {n: decimal(v / 1024, 1)}) : bytes(v)),
    // MiB to one decimal from 1 MiB up (a program's bytes), KiB below
    size: (v) => (Math.abs(v) >= 1048576 ? fill(labels.mib, {n: decimal(v / 1048576, 1)})
      : Math.abs(v) >= 1024 ? fill(labels.kib, {n: decimal(v / 1024, 1)}) : bytes(v)),
    share: (v, limit) => fill(labels.percent, {n: (100 * v / limit).toFixed(1)}),
    seconds: (v, places) => fill(labels.seconds, {n: decimal(v, places)}),
    tiles: (n) => fill(n === 1 ? labels.tiles_one : labels.tiles_many, {n: integer(n)}),
  };
}
