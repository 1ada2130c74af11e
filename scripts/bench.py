#!/usr/bin/env python3
"""Benchmark memreport against ``size -A``, ``llvm-size -A`` and bare JSON/CBOR decoding (issues #7, #15).

Generates (or reuses) a Mk2 ELF archive of 1,472 and of 94,208 tiles (at
pod scale in four shapes: short member names or long ones in the ``//``
table, each with and without a ``/`` symbol index), and graph profiles of
94,208 tiles (compact JSON, JSON with ``json.dump``'s default separators,
CBOR), under ``bench_data/`` (or ``--data-dir``), before any timing; then
runs every command as a subprocess, alternating them ``--repeat`` times,
and prints the median and minimum wall time, the ratio of memreport's
median to each reference's, and the peak RSS of each process.

    python scripts/bench.py                 # the full run (generates ~2 GB once)
    python scripts/bench.py --quick         # a smoke run on small inputs
    python scripts/bench.py --quick --tiles 64 --data-dir /tmp/bd --json out.json
    python scripts/bench.py --tiles 376832 --shapes short --no-profiles   # a Bow Pod256
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from tests.synth.archive import SHT_STRTAB, SHT_SYMTAB, ArchiveWriter, Section, bss, data, elf_file, note

GENERATOR_VERSION = 1  # bump when the generated content changes, so stale files are rebuilt
SHT_RELA = 4
TILES_PER_IPU = 1472
BYTES_PER_TILE = 624 * 1024
POD_TILES = 94208  # a POD64: 64 IPUs x 1,472 tiles
FULL_ARCHIVES = (1472, 94208)
FULL_PROFILES = (94208,)
QUICK_ARCHIVES = (1472,)
QUICK_PROFILES = (1472,)
# Archive shapes (issue #15): member names of up to 15 bytes in the header, or longer ones in the ``//``
# table; with or without GNU ar's ``/`` symbol index first. (shape, long names, symbol index)
ARCHIVE_SHAPES = (("short", False, False), ("long", True, False), ("long_index", True, True),
                  ("short_index", False, True))
# Profile encodings: orjson's compact JSON, json.dump's default ", " / ": " separators, CBOR. (suffix, label)
PROFILE_SHAPES = (("json", "JSON"), ("spaced.json", "JSON (spaced)"), ("cbor", "CBOR"), ("csv", "memreport CSV"))
TEXT_PATTERN = bytes(range(0x40, 0x80))  # a stand-in for instructions: any bytes do


# ---------------------------------------------------------------------------- inputs

def tile_layout(num_tiles: int, seed: int = 7) -> np.ndarray:
    """Per tile (text, data, bss) bytes: ~18 KB of code, a few KB of data, the rest of the memory as .bss."""
    rng = np.random.default_rng(seed)
    total = rng.normal(330 * 1024, 45 * 1024, num_tiles).clip(120 * 1024, BYTES_PER_TILE - 4096)
    total[::64] += 140 * 1024  # exchange-heavy tiles
    total = total.astype(np.int64).clip(0, BYTES_PER_TILE - 1024)
    over = rng.choice(num_tiles, size=max(1, num_tiles // 20000), replace=False)
    total[over] = BYTES_PER_TILE + rng.integers(512, 64 * 1024, over.size)
    text_bytes = rng.integers(15_000, 21_000, num_tiles) & ~3
    data_bytes = rng.integers(256, 2_048, num_tiles) & ~3
    bss_bytes = np.maximum(total - text_bytes - data_bytes, 0)
    return np.stack([text_bytes, data_bytes, bss_bytes], axis=1)


def tile_member(tile: int, text_bytes: int, data_bytes: int, bss_bytes: int) -> bytes:
    """A tile ELF with Poplar's shape: code, data, .bss, and sections that take no tile memory."""
    symbols = 8 + tile % 24
    blob = bytearray(elf_file([
        Section(".text", text_bytes, fill=TEXT_PATTERN, flags=0x6),
        data(data_bytes),
        bss(bss_bytes),
        note(24 + tile % 9),
        Section(".rela.text", 12 * (4 + tile % 16), SHT_RELA, 0),  # the trap ``grep .text`` falls in
        Section(".symtab", 16 * symbols, SHT_SYMTAB, 0),
        Section(".strtab", 4 * symbols, SHT_STRTAB, 0),
    ], e_flags=0x2))
    # Link the tables as a linker would (binutils rejects a file whose symbol table is unlinked);
    # zero-filled symbols and relocations are valid (all STN_UNDEF / R_NONE).
    (shoff,) = struct.unpack_from("<I", blob, 32)
    for index, link, info, entsize in ((5, 6, 1, 12), (6, 7, symbols, 16)):
        struct.pack_into("<II", blob, shoff + 40 * index + 24, link, info)
        struct.pack_into("<I", blob, shoff + 40 * index + 36, entsize)
    return bytes(blob)


def write_archive(path: str, num_tiles: int) -> None:
    """Write a Mk2 archive of ``num_tiles`` tile ELFs, streaming members to disk."""
    tmp = path + ".part"
    layout = tile_layout(num_tiles).tolist()
    with open(tmp, "wb", buffering=1 << 20) as f:
        writer = ArchiveWriter(f)
        for tile, (t, d, b) in enumerate(layout):
            writer.add(f"tile_{tile:05d}.elf", tile_member(tile, t, d, b))
    os.replace(tmp, path)


def long_name(tile: int) -> str:
    """A member name over 15 bytes, as Poplar's multi-IPU archives spell them: it lives in the ``//`` table."""
    return f"ipu{tile // TILES_PER_IPU:02d}_tile_{tile % TILES_PER_IPU:04d}.elf"


def _ar_header(name: bytes, size: int, mode: bytes = b"100644") -> bytes:
    return b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name, 0, 0, 0, mode, size)


def write_variant(path: str, source: str, long_names: bool, symbol_index: bool) -> None:
    """Copy the archive ``source`` (short names, no index) with long names in a ``//`` table and/or a GNU
    ``/`` symbol index first (one symbol per member, offsets to its header), as GNU ar lays them out."""
    members: list[tuple[int, int]] = []  # (data offset, size) in source
    with open(source, "rb") as src:
        offset, total = 8, os.fstat(src.fileno()).st_size
        while offset + 60 <= total:
            src.seek(offset)
            size = int(src.read(60)[48:58])
            members.append((offset + 60, size))
            offset += 60 + size + (size & 1)
        names = [long_name(i) if long_names else f"tile_{i:05d}.elf" for i in range(len(members))]
        table = b"".join(n.encode() + b"/\n" for n in names) if long_names else b""
        symbols = b"".join(b"tile_%d_main\0" % i for i in range(len(members)))
        index_size = 4 + 4 * len(members) + len(symbols)
        at = 8 + ((60 + index_size + (index_size & 1)) if symbol_index else 0)
        at += (60 + len(table) + (len(table) & 1)) if table else 0
        header_at = []
        for _, size in members:
            header_at.append(at)
            at += 60 + size + (size & 1)
        tmp = path + ".part"
        with open(tmp, "wb", buffering=1 << 20) as out:
            out.write(b"!<arch>\n")
            if symbol_index:
                index = struct.pack(">I", len(members)) + np.array(header_at, ">u4").tobytes() + symbols
                out.write(_ar_header(b"/", len(index), b"0") + index + b"\n" * (len(index) & 1))
            if table:
                out.write(_ar_header(b"//", len(table), b"") + table + b"\n" * (len(table) & 1))
            name_at = 0
            for name, (data_at, size) in zip(names, members):
                if long_names:
                    header_name = b"/%d" % name_at
                    name_at += len(name) + 2
                else:
                    header_name = name.encode() + b"/"
                src.seek(data_at)
                out.write(_ar_header(header_name, size) + src.read(size) + b"\n" * (size & 1))
    os.replace(tmp, path)


PROFILE_VERSION = 2  # 2: realistic mixed widths (issue #26, item 8); bump when the profiles change


def profile_document(num_tiles: int) -> dict:
    """A pod-scale graph profile as Poplar writes them: 17 categories x 3 regions, values 0..20,000 with 30 %
    zeros (per-tile lists of mixed CBOR widths and JSON lengths), including gaps and liveness."""
    from tests.synth.profile import mixed_profile
    return mixed_profile(num_tiles, seed=11, num_ipus=max(1, num_tiles // TILES_PER_IPU),
                         tiles_per_ipu=TILES_PER_IPU, bytes_per_tile=BYTES_PER_TILE, clock_hz=1.33e9,
                         graph={"numVertices": 40 * num_tiles, "numEdges": 90 * num_tiles,
                                "numVars": 12 * num_tiles, "numComputeSets": 2_400})


def write_profile(path: str, num_tiles: int, encoding: str) -> None:
    """Write a JSON or CBOR graph profile made with tests.synth.profile."""
    from tests.synth.profile import _plain, encode_cbor, encode_json
    doc = profile_document(num_tiles)
    if encoding == "csv":  # memreport's own CSV of the profile: a baseline CI keeps (issue #26, item 7)
        import memreport
        from memreport.analysis import summarize_all
        from memreport.render.data.csv import render_csv
        source = path + ".json"
        with open(source, "wb") as f:
            f.write(encode_json(doc))
        blob = render_csv(summarize_all([memreport.read(source)])).encode()
        os.unlink(source)
    elif encoding == "spaced.json":  # Python's json.dump with its default ", " and ": " separators
        blob = json.dumps(doc, default=_plain).encode()
    else:
        blob = encode_json(doc) if encoding == "json" else encode_cbor(doc)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(blob)
    os.replace(tmp, path)


def ensure(path: str, make, *args, fresh: bool = False) -> str:
    if fresh or not os.path.exists(path):
        start = time.perf_counter()
        make(path, *args)
        print(f"generated {os.path.basename(path)}: {os.path.getsize(path) / 1e6:,.1f} MB "
              f"in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    return path


def profiles_available() -> bool:
    try:
        from tests.synth import profile
    except ImportError:
        return False
    return hasattr(profile, "build_profile") and hasattr(profile, "encode_cbor")


# ---------------------------------------------------------------------------- timing

@dataclass
class Command:
    label: str
    argv: list[str]
    shell: bool = False
    ok_exits: tuple[int, ...] = (0,)  # exit codes of a run that counts (memreport's gates exit 3)
    times: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # user + system seconds of the command's process tree

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)

    @property
    def peak_mb(self) -> float:
        return max(self.rss_kib) / 1024


GNU_TIME = "/usr/bin/time"


def _gnu_time() -> bool:
    """Whether /usr/bin/time is GNU time, which measures a command's peak RSS from a small process."""
    try:
        out = subprocess.run([GNU_TIME, "-f", "%M", "true"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and out.stderr.strip().isdigit()


def run_once(cmd: Command, gnu_time: bool) -> None:
    """Run one command with stdout to /dev/null; record wall time and the peak RSS of its whole tree.

    A forked child's peak RSS counts its parent's pages until it execs, so
    the peak comes from GNU time (a few MB) when there is one, else from
    wait4 on our own child, whose figure then includes this script's size.
    """
    argv = ["sh", "-c", cmd.argv[0]] if cmd.shell else cmd.argv
    with open(os.devnull, "wb") as null, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        if gnu_time:
            argv = [GNU_TIME, "-f", "%M", "-o", rss.name] + argv
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=null, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # a pipeline's peak is its largest stage's
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in cmd.ok_exits:
            err.seek(0)
            tail = err.read()[-2000:].decode("utf-8", "replace")
            raise SystemExit(f"bench: {cmd.label!r} exited {proc.returncode}: {shlex.join(argv)}\n{tail}")
        peak_kib = usage.ru_maxrss
        if gnu_time:
            lines = rss.read().split()
            peak_kib = int(lines[-1]) if lines and lines[-1].isdigit() else peak_kib
    cmd.times.append(elapsed)
    cmd.rss_kib.append(peak_kib)
    cmd.cpu.append(usage.ru_utime + usage.ru_stime)  # wait4 counts the descendants it (GNU time) waited for


def memreport_argv() -> list[str]:
    """The ``memreport`` entry point installed beside this interpreter (a virtualenv's), else the one on PATH
    (the real script, not a pyenv shim), else ``python -m``."""
    beside = os.path.join(os.path.dirname(sys.executable), "memreport")
    if os.access(beside, os.X_OK):
        return [beside]
    exe = shutil.which("memreport")
    if exe:
        try:
            real = subprocess.run(["pyenv", "which", "memreport"], capture_output=True, text=True,
                                  check=True).stdout.strip()
            exe = real or exe
        except (OSError, subprocess.CalledProcessError):
            pass
        return [exe]
    return [sys.executable, "-m", "memreport"]


def archive_commands(path: str) -> list[Command]:
    q = shlex.quote(path)
    cmds = [Command("memreport --format json", memreport_argv() + [path, "--format", "json"])]
    if shutil.which("size"):
        cmds.append(Command("size -A", ["size", "-A", path]))
        cmds.append(Command("size -A | grep .text | awk", [
            f"size -A {q} | grep -e \".text\" | awk '{{print $2}}'"], shell=True))
    if shutil.which("llvm-size"):
        cmds.append(Command("llvm-size -A", ["llvm-size", "-A", path]))
    cmds.append(Command(FLOOR_LABEL, [sys.executable, "-c", FLOOR_CODE, path]))
    return cmds


FLOOR_LABEL = "python: touch the pages"
# The floor for a Python reader: the pages any per-tile answer needs (each member's ar header and ELF header,
# and its section table), touched through a mapping with one slice each and no other work.
FLOOR_CODE = """import mmap, sys
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
end, at = len(m), 8
while at + 60 <= end:
    size = int(m[at + 48:at + 58])
    shoff = int.from_bytes(m[at + 92:at + 96], "little")
    m[at + 60 + shoff:at + 61 + shoff]
    at += 60 + size + (size & 1)
"""


def profile_commands(path: str, encoding: str) -> list[Command]:
    cmds = [Command("memreport --format json", memreport_argv() + [path, "--format", "json"])]
    if encoding.endswith("json"):
        code = "import orjson, sys; orjson.loads(open(sys.argv[1], 'rb').read())"
        cmds.append(Command("python: orjson.loads", [sys.executable, "-c", code, path]))
    elif encoding == "csv":
        code = "import csv, sys; list(csv.reader(open(sys.argv[1], newline='')))"
        cmds.append(Command("python: list(csv.reader)", [sys.executable, "-c", code, path]))
    else:
        code = "import cbor2, sys; cbor2.load(open(sys.argv[1], 'rb'))"
        cmds.append(Command("python: cbor2.load", [sys.executable, "-c", code, path]))
    return cmds


IN_PROCESS_CODE = """import gc, statistics, sys, time
import memreport
path, encoding, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
if encoding == "cbor":
    import cbor2
    bare = lambda: cbor2.load(open(path, "rb"))
else:
    import orjson
    bare = lambda: orjson.loads(open(path, "rb").read())
ours = lambda: memreport.read(path)
ours(); bare()
times = {"bare": [], "ours": []}
for _ in range(repeat):
    for name, call in (("bare", bare), ("ours", ours)):
        gc.collect()
        start = time.thread_time()
        result = call()
        times[name].append(time.thread_time() - start)
        del result
print(statistics.median(times["ours"]), statistics.median(times["bare"]))
"""


def in_process(path: str, encoding: str, repeat: int) -> tuple[float, float]:
    """CPU seconds (this thread's, medians) of ``memreport.read`` and of the bare decoder, alternating in one
    process: the decoding alone, without either's start-up."""
    out = subprocess.run([sys.executable, "-c", IN_PROCESS_CODE, path, "cbor" if encoding == "cbor" else "json",
                          str(max(repeat, 3))], capture_output=True, text=True, check=True,
                         env={**os.environ, "OPENBLAS_NUM_THREADS": "1"}).stdout.split()
    return float(out[0]), float(out[1])


def bench(cmds: list[Command], repeat: int, gnu_time: bool) -> None:
    for cmd in cmds:  # one untimed warm-up: the page cache holds the input for every timed run
        run_once(cmd, gnu_time)
        cmd.times.clear()
        cmd.rss_kib.clear()
        cmd.cpu.clear()
    for _ in range(repeat):  # alternate, so drift in the machine hits every command alike
        for cmd in cmds:
            run_once(cmd, gnu_time)


# ---------------------------------------------------------------------------- report

@dataclass
class Row:
    input: str
    size_mb: float
    command: str
    median_s: float
    min_s: float
    ratio: float | None  # memreport's median / this command's median
    peak_rss_mb: float
    runs: int
    cpu_median_s: float = 0.0        # user + system
    cpu_ratio: float | None = None   # memreport's CPU median / this command's (fairer than wall on a busy machine)


BASELINE_LABEL = "python: import numpy, memreport"
# What any read costs before it reads: the interpreter, numpy and every reader and renderer module.
BASELINE_CODE = ("import numpy, memreport.cli; from memreport.readers import readers; readers(); "
                 "from memreport.render.data import report as table; from memreport.render.text import report as text")


def rows_for(name: str, path: str | None, cmds: list[Command]) -> list[Row]:
    ours, ours_cpu = cmds[0].median, cmds[0].cpu_median
    size_mb = os.path.getsize(path) / 1e6 if path else 0.0
    return [Row(name, size_mb, c.label, c.median, min(c.times), None if i == 0 else ours / c.median, c.peak_mb,
                len(c.times), c.cpu_median, None if i == 0 or not c.cpu_median else ours_cpu / c.cpu_median)
            for i, c in enumerate(cmds)]


def print_table(rows: list[Row], out=sys.stdout) -> None:
    head = (f"{'input':<34} {'MB':>8}  {'command':<28} {'median s':>9} {'min s':>8} {'ours/this':>9} {'peak MB':>8}"
            f" {'cpu s':>7} {'cpu ours/this':>13}")
    print(head, file=out)
    print("-" * len(head), file=out)
    last = None
    for r in rows:
        name = r.input if r.input != last else ""
        size = f"{r.size_mb:,.1f}" if r.input != last and r.size_mb else ""
        ratio = "" if r.ratio is None else f"{r.ratio:.2f}"
        cpu_ratio = "" if r.cpu_ratio is None else f"{r.cpu_ratio:.2f}"
        print(f"{name:<34} {size:>8}  {r.command:<28} {r.median_s:>9.3f} {r.min_s:>8.3f} {ratio:>9} "
              f"{r.peak_rss_mb:>8.1f} {r.cpu_median_s:>7.3f} {cpu_ratio:>13}", file=out)
        last = r.input


def _cpu_note(row: Row) -> str:
    return "" if row.cpu_ratio is None else f" ({row.cpu_ratio:.2f}x its CPU)"


def targets(rows: list[Row]) -> list[tuple[str, str, bool | None]]:
    """Issue #15's targets on the inputs timed: (target, measured, met; None for an aim)."""
    result: list[tuple[str, str, bool | None]] = []
    ours = "memreport --format json"
    baseline = next((r for r in rows if r.command == BASELINE_LABEL), None)
    for big in (r for r in rows if r.input.startswith("archive") and r.command == ours):
        same = {r.command: r for r in rows if r.input == big.input}
        if "llvm-size -A" in same:
            ref = same["llvm-size -A"]
            assert ref.ratio is not None  # not memreport's own row
            result.append((f"{big.input}: at most 1.0x llvm-size -A", f"{ref.ratio:.2f}x its time{_cpu_note(ref)}",
                           ref.ratio <= 1.0))
        result.append((f"{big.input}: peak memory at most 120 MB", f"{big.peak_rss_mb:.0f} MB",
                       big.peak_rss_mb <= 120))
    for big in (r for r in rows if r.input.startswith("memreport CSV") and r.command == ours):
        result.append((f"{big.input}: peak at most 20x the file ({big.size_mb:.1f} MB)",
                       f"{big.peak_rss_mb:.0f} MB = {big.peak_rss_mb / big.size_mb:.1f}x in all"
                       + (f", {(big.peak_rss_mb - baseline.peak_rss_mb) / big.size_mb:.1f}x above start-up"
                          if baseline is not None else ""), big.peak_rss_mb <= 20 * big.size_mb))
    for big in (r for r in rows if " profile" in r.input and r.command == ours and "CSV" not in r.input):
        bare = "python: cbor2.load" if big.input.startswith("CBOR") else "python: orjson.loads"
        ref = next(r for r in rows if r.input == big.input and r.command == bare)
        assert ref.ratio is not None
        result.append((f"{big.input}: at most 1.0x {bare[8:]}", f"{ref.ratio:.2f}x{_cpu_note(ref)}",
                       ref.ratio <= 1.0))
        if baseline is not None:
            above = big.peak_rss_mb - baseline.peak_rss_mb
            result.append((f"{big.input}: peak at most 2x the file ({big.size_mb:.1f} MB) above start-up",
                           f"{above:.0f} MB = {above / big.size_mb:.2f}x (bare decoder {ref.peak_rss_mb:.0f} MB "
                           f"in all)", above <= 2 * big.size_mb))
    version = [r for r in rows if r.input == "start-up" and r.command == "memreport --version"]
    if version:
        result.append(("memreport --version under 0.3 s", f"{version[0].median_s:.3f} s "
                       f"({version[0].peak_rss_mb:.0f} MB)", version[0].median_s < 0.3))
    return result


def print_targets(found: list[tuple[str, str, bool | None]], out=sys.stdout) -> None:
    if not found:
        return
    width = max(len(t) for t, _, _ in found)
    measured_width = max(len(m) for _, m, _ in found)
    print(f"\n{'target':<{width}}  {'measured':<{measured_width}}  met", file=out)
    for target, measured, met in found:
        verdict = "(aim)" if met is None else "yes" if met else "NO"
        print(f"{target:<{width}}  {measured:<{measured_width}}  {verdict}", file=out)


def precompile() -> None:
    """Byte-compile memreport as an installed package is (this tree may run with PYTHONDONTWRITEBYTECODE)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "memreport")],
                   check=False, stdout=subprocess.DEVNULL)


def machine() -> dict:
    info = {"python": platform.python_version(), "nproc": os.cpu_count(), "platform": platform.platform()}
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        info["cpu"] = next((line.split(":", 1)[1].strip() for line in lscpu.splitlines()
                            if line.startswith("Model name")), "")
    except (OSError, subprocess.CalledProcessError):
        pass
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.path.join(ROOT, "bench_data"),
                        help="where generated inputs are kept and reused (default: bench_data/)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 1,472-tile inputs only, one timed run each")
    parser.add_argument("--repeat", type=int, default=None, metavar="N",
                        help="timed runs per command (default 5, 1 with --quick)")
    parser.add_argument("--tiles", type=int, nargs="+", metavar="N",
                        help="tile counts to generate and time, overriding the defaults")
    parser.add_argument("--no-profiles", action="store_true", help="archives only")
    parser.add_argument("--no-archives", action="store_true", help="profiles only")
    parser.add_argument("--shapes", nargs="+", default=[s[0] for s in ARCHIVE_SHAPES],
                        choices=[s[0] for s in ARCHIVE_SHAPES],
                        help="archive shapes to time at pod scale (default: all; smaller archives: short only)")
    parser.add_argument("--regenerate", action="store_true", help="rebuild inputs even if present")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 5)
    if repeat < 1:
        parser.error("--repeat must be at least 1")
    archives = () if args.no_archives else (args.tiles or (QUICK_ARCHIVES if args.quick else FULL_ARCHIVES))
    profiles = () if args.no_profiles else (args.tiles or (QUICK_PROFILES if args.quick else FULL_PROFILES))
    if profiles and not profiles_available():
        print("bench: tests.synth.profile is not available: profiles skipped", file=sys.stderr)
        profiles = ()
    os.makedirs(args.data_dir, exist_ok=True)
    precompile()
    gnu_time = _gnu_time()
    rows: list[Row] = []
    decoding: list[tuple[str, str, bool | None]] = []

    version = Command("memreport --version", memreport_argv() + ["--version"])
    baseline = Command(BASELINE_LABEL, [sys.executable, "-c", BASELINE_CODE])
    bench([version, baseline], repeat, gnu_time)
    rows += rows_for("start-up", None, [version, baseline])

    for tiles in archives:
        base = ensure(os.path.join(args.data_dir, f"ipu2_{tiles}_tiles.v{GENERATOR_VERSION}.a"),
                      write_archive, tiles, fresh=args.regenerate)
        shapes = [s for s in ARCHIVE_SHAPES if s[0] in args.shapes] if tiles >= POD_TILES else ARCHIVE_SHAPES[:1]
        for shape, long_names, symbol_index in shapes:
            path = base if shape == "short" else ensure(
                os.path.join(args.data_dir, f"ipu2_{tiles}_tiles_{shape}.v{GENERATOR_VERSION}.a"),
                write_variant, base, long_names, symbol_index, fresh=args.regenerate)
            cmds = archive_commands(path)
            bench(cmds, repeat, gnu_time)
            rows += rows_for(f"archive ({shape}), {tiles:,} tiles", path, cmds)
    for tiles in profiles:
        for encoding, label in PROFILE_SHAPES:
            path = ensure(os.path.join(args.data_dir, f"profile_{tiles}_tiles.v{PROFILE_VERSION}.{encoding}"),
                          write_profile, tiles, encoding, fresh=args.regenerate)
            cmds = profile_commands(path, encoding)
            bench(cmds, repeat, gnu_time)
            rows += rows_for(f"{label} profile, {tiles:,} tiles", path, cmds)
            if encoding != "csv" and tiles >= POD_TILES:  # a target at pod scale, as the others
                ours, bare = in_process(path, encoding, repeat)
                decoding.append((f"{label} profile, {tiles:,} tiles: memreport.read at most 1.0x the bare "
                                 "decoder in process (CPU)", f"{ours:.3f} s against {bare:.3f} s = {ours / bare:.2f}x",
                                 ours <= bare))

    print(f"memreport benchmark: {repeat} timed run(s) per command, alternating; medians; "
          f"ours/this = memreport's median / this command's median (wall, then CPU: user + system)")
    print_table(rows)
    found = targets([r for r in rows if r.input == "start-up" or (r.input.endswith(" tiles")
                     and int(r.input.rsplit(" ", 2)[1].replace(",", "")) >= POD_TILES)])
    print("ours/this for start-up: memreport --version's median / this command's median")
    found += decoding
    print_targets(found)
    if not any(r.input.endswith(" tiles") and int(r.input.rsplit(" ", 2)[1].replace(",", "")) >= POD_TILES
               for r in rows):
        print(f"\n(issue #15's targets are for {POD_TILES:,}-tile inputs: run without --quick to check them)")
    print("peak MB: " + ("GNU time's maximum resident set size" if gnu_time else
                         "wait4's ru_maxrss (includes this script's own pages: /usr/bin/time was not found)"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "repeat": repeat, "argv": sys.argv[1:] if argv is None else argv,
                       "rows": [asdict(r) for r in rows],
                       "targets": [{"target": t, "measured": m, "met": ok} for t, m, ok in found]}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
