#!/usr/bin/env python3
"""Benchmark memreport against ``size -A``, ``llvm-size -A`` and bare JSON/CBOR decoding (issue #7).

Generates (or reuses) a Mk2 ELF archive of 1,472 and of 94,208 tiles, and
JSON and CBOR graph profiles of 94,208 tiles, under ``bench_data/`` (or
``--data-dir``); then runs every command as a subprocess, alternating them
``--repeat`` times, and prints the median wall time, the ratio of
memreport's time to each reference's, and the peak RSS of each process.

    python scripts/bench.py                 # the full run (generates ~2 GB once)
    python scripts/bench.py --quick         # a smoke run on small inputs
    python scripts/bench.py --quick --tiles 64 --data-dir /tmp/bd --json out.json
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
from memreport.synth.archive import (  # noqa: E402
    SHT_STRTAB, SHT_SYMTAB, ArchiveWriter, Section, bss, data, elf_file, note, text)

GENERATOR_VERSION = 1  # bump when the generated content changes, so stale files are rebuilt
SHT_RELA = 4
TILES_PER_IPU = 1472
BYTES_PER_TILE = 624 * 1024
FULL_ARCHIVES = (1472, 94208)
FULL_PROFILES = (94208,)
QUICK_ARCHIVES = (1472,)
QUICK_PROFILES = (1472,)
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


def write_profile(path: str, num_tiles: int, encoding: str) -> None:
    """Write a JSON or CBOR graph profile with memreport.synth.profile."""
    from memreport.synth import profile as synth_profile
    tmp = path + ".part"
    synth_profile.write_profile(tmp, num_tiles=num_tiles, encoding=encoding, seed=7)
    os.replace(tmp, path)


def ensure(path: str, make, *args, fresh: bool = False) -> str:
    if fresh or not os.path.exists(path):
        start = time.perf_counter()
        make(path, *args)
        print(f"generated {os.path.basename(path)}: {os.path.getsize(path) / 1e6:,.1f} MB "
              f"in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return path


def profiles_available() -> bool:
    try:
        from memreport.synth import profile
    except ImportError:
        return False
    return hasattr(profile, "write_profile")


# ---------------------------------------------------------------------------- timing

@dataclass
class Command:
    label: str
    argv: list[str]
    shell: bool = False
    times: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def peak_mb(self) -> float:
        return max(self.rss_kib) / 1024


def run_once(cmd: Command) -> None:
    """Run one command with stdout to /dev/null; record wall time and the peak RSS of its whole tree."""
    with open(os.devnull, "wb") as null, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd.argv, shell=cmd.shell, stdout=null, stderr=err)
        # wait4 reports the child's own peak RSS or that of any descendant it reaped (a pipeline's stages).
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            tail = err.read()[-2000:].decode("utf-8", "replace")
            raise SystemExit(f"bench: {cmd.label!r} exited {proc.returncode}: {shlex.join(cmd.argv)}\n{tail}")
    cmd.times.append(elapsed)
    cmd.rss_kib.append(usage.ru_maxrss)


def memreport_argv() -> list[str]:
    """The installed ``memreport`` entry point (the real script, not a pyenv shim), else ``python -m``."""
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
    return cmds


def profile_commands(path: str, encoding: str) -> list[Command]:
    cmds = [Command("memreport --format json", memreport_argv() + [path, "--format", "json"])]
    if encoding == "json":
        code = "import orjson, sys; orjson.loads(open(sys.argv[1], 'rb').read())"
        cmds.append(Command("python: orjson.loads", [sys.executable, "-c", code, path]))
    else:
        code = "import cbor2, sys; cbor2.load(open(sys.argv[1], 'rb'))"
        cmds.append(Command("python: cbor2.load", [sys.executable, "-c", code, path]))
    return cmds


def bench(cmds: list[Command], repeat: int) -> None:
    for cmd in cmds:  # one untimed warm-up: the page cache holds the input for every timed run
        run_once(cmd)
        cmd.times.clear()
        cmd.rss_kib.clear()
    for _ in range(repeat):  # alternate, so drift in the machine hits every command alike
        for cmd in cmds:
            run_once(cmd)


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


def rows_for(name: str, path: str | None, cmds: list[Command]) -> list[Row]:
    ours = cmds[0].median
    size_mb = os.path.getsize(path) / 1e6 if path else 0.0
    return [Row(name, size_mb, c.label, c.median, min(c.times),
                None if i == 0 else ours / c.median, c.peak_mb, len(c.times))
            for i, c in enumerate(cmds)]


def print_table(rows: list[Row], out=sys.stdout) -> None:
    head = f"{'input':<26} {'MB':>8}  {'command':<28} {'median s':>9} {'min s':>8} {'ours/this':>9} {'peak MB':>8}"
    print(head, file=out)
    print("-" * len(head), file=out)
    last = None
    for r in rows:
        name = r.input if r.input != last else ""
        size = f"{r.size_mb:,.1f}" if r.input != last and r.size_mb else ""
        ratio = "" if r.ratio is None else f"{r.ratio:.2f}"
        print(f"{name:<26} {size:>8}  {r.command:<28} {r.median_s:>9.3f} {r.min_s:>8.3f} {ratio:>9} "
              f"{r.peak_rss_mb:>8.1f}", file=out)
        last = r.input


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
    parser.add_argument("--regenerate", action="store_true", help="rebuild inputs even if present")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 5)
    if repeat < 1:
        parser.error("--repeat must be at least 1")
    archives = args.tiles or (QUICK_ARCHIVES if args.quick else FULL_ARCHIVES)
    profiles = () if args.no_profiles else (args.tiles or (QUICK_PROFILES if args.quick else FULL_PROFILES))
    if profiles and not profiles_available():
        print("bench: memreport.synth.profile is not available: profiles skipped", file=sys.stderr)
        profiles = ()
    os.makedirs(args.data_dir, exist_ok=True)
    rows: list[Row] = []

    version = Command("memreport --version", memreport_argv() + ["--version"])
    bench([version], repeat)
    rows += rows_for("start-up", None, [version])

    for tiles in archives:
        path = ensure(os.path.join(args.data_dir, f"ipu2_{tiles}_tiles.v{GENERATOR_VERSION}.a"),
                      write_archive, tiles, fresh=args.regenerate)
        cmds = archive_commands(path)
        bench(cmds, repeat)
        rows += rows_for(f"archive, {tiles:,} tiles", path, cmds)
    for tiles in profiles:
        for encoding in ("json", "cbor"):
            path = ensure(os.path.join(args.data_dir, f"profile_{tiles}_tiles.v{GENERATOR_VERSION}.{encoding}"),
                          write_profile, tiles, encoding, fresh=args.regenerate)
            cmds = profile_commands(path, encoding)
            bench(cmds, repeat)
            rows += rows_for(f"{encoding.upper()} profile, {tiles:,} tiles", path, cmds)

    print(f"memreport benchmark: {repeat} timed run(s) per command, alternating; medians; "
          f"ours/this = memreport's median / this command's median")
    print_table(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "repeat": repeat, "argv": sys.argv[1:] if argv is None else argv,
                       "rows": [asdict(r) for r in rows]}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
