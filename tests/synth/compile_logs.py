"""Synthetic run logs with compile, cache and load lines, written line by line from the loggers' format strings.

Every line is built from the format strings and real excerpts of
docs/FORMATS.md §8.3-§8.12 (research: /work/research/issue12.md), independently
of memreport's parser: the TensorFlow prefix of ``logging.cc``, Poplar's two
styles (``09:38:52.878 15288 PO:ENGINE   [I] `` with indentation, and
``2023-06-29T16:14:58.205011Z PO:GRAPH    79.79 I: `` with ``PO:PERF`` timing
lines), PopART's two prefixes, PopTorch's, mpirun's ``[1,0]<stderr>:`` tags,
tqdm bars glued to the front of a line, ANSI colours and unrelated lines in
between. What no public log shows (FORMATS.md §8.13) is marked where used:
the top-level phase names of an SDK 2.x compile are taken from SDK 3.3.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from memreport.model import Compilation

START = datetime(2023, 6, 29, 16, 14, 57, 810215)   # UTC, the whisper run's first line
LOCAL = timedelta(hours=2)                           # the machine's local time, for TensorFlow and older loggers
LEVEL_WORDS = {"T": "trace", "D": "debug", "I": "info", "W": "warning", "E": "error"}
TF_COMPILER = "tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc"
TF_CACHE = "tensorflow/compiler/plugin/poplar/driver/poplar_executable_cache.cc"
TF_EXECUTABLE = "tensorflow/compiler/plugin/poplar/driver/poplar_executable.cc"
# poplar_compiler.cc (r2.6/sdk-release-3.4) line numbers of each message.
TF_LINES = {"begin": 1487, "deserialize": 1574, "loaded": 1591, "miss": 1596, "end": 1748, "skip": 1786,
            "main": 1805, "hlo": 1807, "engine": 1917, "percent": 1924, "precompiled": 1980, "custom": 1996,
            "engine_end": 2014}
CUSTOM_OP = ("Executable caching has been enabled, however the program being compiled contains custom user "
             "operations which cannot be safely serialized. If it is safe to pre-compile these custom user "
             "operations, please set the 'is_hashable' attribute to 'true' in the operations metadata function. "
             "Please see the documentation for further details.")
TIME_TABLE = (  # poprithms' TimePartitionLogger, as the whisper run printed it
    "Scope                                                Time [s]          Count  Percentage",
    "-----                                                --------          -----  ----------",
    'Lowering ops to poplar ("grow" methods)              2.712914            200         9 %',
    "Total                                                29.055176           n/a       100 %",
)
NOISE = (
    "2023-08-22 23:35:07.087287: I tensorflow/compiler/mlir/mlir_graph_optimization_pass.cc:185] None of the MLIR "
    "Optimization Passes are enabled (registered 2)",
    "{'loss': 2.3141, 'learning_rate': 9.5e-05, 'epoch': 0.47}",
    "[INFO] loss: 6.7462,",
    "Loss:6.7462 | Accuracy:0.62%: 100%|██████████| 78/78 [02:48<00:00,  2.16s/it]",
)


GRAPH_CONSTRUCTION = "graphConstruction"
PREPARE_LOAD, LOAD = "Preparing to load executable", "Loading executable"


@dataclass(frozen=True)
class Phase:
    """A phase to log: its own time, the RSS its PERF line prints (``max_rss`` None for a parent), children."""

    name: str
    ms: int
    max_rss: float | None = None
    total_rss: float = 2000.0
    children: tuple[Phase, ...] = ()
    module: str = "ENGINE"


@dataclass
class Clock:
    """The run's time (UTC); loggers print it in UTC or in local time as theirs do."""

    now: datetime = START

    def tick(self, ms: float) -> None:
        self.now += timedelta(milliseconds=ms)


def tqdm_bar(percent: int, elapsed: str = "00:31", remaining: str = "01:11", width: int = 10) -> str:
    """PopTorch's compile bar: ``Graph compilation:  45%|████▌     | 45/100 [00:31<01:11]``."""
    full = percent * width // 100
    part = "▌" if percent * width % 100 >= 50 and full < width else ""
    bar = ("█" * full + part).ljust(width)
    return f"Graph compilation: {percent:3d}%|{bar}| {percent}/100 [{elapsed}<{remaining}]"


def _tqdm_clock(seconds: int) -> str:
    """tqdm's format_interval: ``MM:SS``, or ``H:MM:SS`` from an hour."""
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours:d}:{minute:02d}:{second:02d}" if hours else f"{minute:02d}:{second:02d}"


@dataclass
class LogBuilder:
    """Lines of one log, with the debris real logs carry.

    ``rank`` tags every line ``[1,rank]<stderr>:`` as mpirun does; ``sdk``
    picks Poplar's and PopART's prefix style ("3" new, "2" older).
    """

    clock: Clock = field(default_factory=Clock)
    rank: int | None = None
    sdk: str = "3"
    pid: int = 79
    colour: bool = False
    lines: list[str] = field(default_factory=list)
    _glue: str | None = None

    # -- the loggers ------------------------------------------------------------------------------------------

    def add(self, text: str) -> None:
        if self.colour and text[:1].isdigit():
            text = f"\x1b[32m{text}\x1b[0m"
        if self._glue is not None:
            text, self._glue = self._glue + text, None
        if self.rank is not None:
            text = f"[1,{self.rank}]<stderr>:{text}"
        self.lines.append(text)

    def glue(self, bar: str) -> None:
        """The next line arrives after a progress bar drawn without a newline (redrawn with ``\\r``)."""
        self._glue = bar

    def _utc(self) -> str:
        return self.clock.now.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"

    def _local(self) -> datetime:
        return self.clock.now + LOCAL

    def tf(self, message: str, *, at: str = "begin", file: str = TF_COMPILER, severity: str = "I",
           thread: int | None = None) -> None:
        """``%s.%06d: %c%s %s:%d] %s`` (logging.cc): local time, the thread id with TF_CPP_LOG_THREAD_ID."""
        local = self._local()
        tid = "" if thread is None else f" {thread:7d}"
        line = TF_LINES.get(at, 1) if file == TF_COMPILER else {TF_CACHE: 94, TF_EXECUTABLE: 397}.get(file, 43)
        self.add(f"{local:%Y-%m-%d %H:%M:%S}.{local.microsecond:06d}: {severity}{tid} {file}:{line}] {message}")

    def poplar(self, module: str, message: str, *, level: str = "I", indent: int = 0) -> None:
        """Poplar's line: SDK 3.x ``...Z PO:MODULE<pad> PID.TID L: `` or the older ``HH:MM:SS.mmm TID PO:...``."""
        pad = f"PO:{module:<8}"
        if self.sdk == "3":
            self.add(f"{self._utc()} {pad} {self.pid}.{self.pid} {level}: {'  ' * indent}{message}")
        else:
            local = self._local()
            self.add(f"{local:%H:%M:%S}.{local.microsecond // 1000:03d} {self.pid} {pad} [{level}] "
                     f"{'  ' * indent}{message}")

    def poplibs(self, module: str, message: str, level: str = "W") -> None:
        self.add(f"{self._utc()} PL:{module:<9} {self.pid}.{self.pid} {level}: {message}")

    def popart(self, module: str, message: str, *, level: str = "I") -> None:
        """PopART: ``...Z popart:module PID.TID L: `` (SDK 2.3 on), or spdlog's default up to 2.2:
        ``[date time.ms] [popart:x] [level] ``."""
        if self.sdk == "3":
            self.add(f"{self._utc()} popart:{module} {self.pid}.{self.pid} {level}: {message}")
        else:
            local = self._local()
            self.add(f"[{local:%Y-%m-%d %H:%M:%S}.{local.microsecond // 1000:03d}] [popart:{module}] "
                     f"[{LEVEL_WORDS[level]}] {message}")

    def poptorch(self, message: str, *, level: str = "info", logger: str = "poptorch::python") -> None:
        local = self._local()
        self.add(f"[{local:%H:%M:%S}.{local.microsecond // 1000:03d}] [{logger}] [{level}] {message}")

    def poprun(self, message: str, level: str = "I") -> None:
        """poprun's own line, never tagged: ``HH:MM:SS.mmm PID POPRUN [L] message`` (local time, §8.3)."""
        local = self._local()
        self.lines.append(f"{local:%H:%M:%S}.{local.microsecond // 1000:03d} 3555537 POPRUN [{level}] {message}")

    def noise(self, count: int = 1) -> None:
        for i in range(count):
            self.add(NOISE[(len(self.lines) + i) % len(NOISE)])

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    # -- Poplar's phases (§8.8) ------------------------------------------------------------------------------

    def phase(self, p: Phase, indent: int = 0, before_end: Sequence[str] = ()) -> None:
        """A phase: its start, its children, then (SDK 3) a PO:PERF line and the end, or (SDK 2) the end with
        its timings. The phase takes ``p.ms`` whatever its children take."""
        start = self.clock.now
        self.poplar(p.module, f"Starting phase: {p.name}", indent=indent)
        self.clock.tick(0.05)
        for child in p.children:
            self.phase(child, indent + 1)
        for line in before_end:
            self.poplar("ENGINE", line)
        self.clock.now = start + timedelta(milliseconds=p.ms)
        self._end(p, indent)

    def _end(self, p: Phase, indent: int = 0) -> None:
        """A phase's end; in SDK 3 a parent's PO:PERF line has no ``max RSS`` (§8.8)."""
        if self.sdk == "3":
            max_part = f"max RSS: {p.max_rss:g} MiB; " if p.max_rss is not None else ""
            self.poplar("PERF", f"{p.name}: real {p.ms:g} ms; user {p.ms * 2:g} ms; sys {p.ms // 4:g} ms; {max_part}"
                                f"diff RSS: 2.20312 total RSS: {p.total_rss:.6f} MiB; current heap usage: 0.000000 MiB")
            self.clock.tick(0.006)
            self.poplar(p.module, f"Ending phase: {p.name}", indent=indent)
        else:
            self.poplar(p.module, f"Ending phase: {p.name} (duration {p.ms:g} ms; diff RSS: 0 MB; total RSS: "
                                  f"{p.total_rss:g} MB)", indent=indent)

    def compile_phases(self, *, construction_ms: int, compile_ms: int, peak_rss: float,
                       overflowed: str = "zero tiles overflowed.", tiles: int = 1472, ipus: int = 1,
                       bar: bool = False) -> None:
        """One Poplar compilation as SDK 3.3 logs it: graph construction twice, nested, then the compile.

        Its top-level phases take ``construction_ms + compile_ms``; the largest
        RSS printed is ``peak_rss``. SDK 2.x: the same top-level names (no
        public 2.x log shows them) with the cookbook's inner phases.
        """
        self.phase(Phase(GRAPH_CONSTRUCTION, construction_ms, None, peak_rss - 900, module="GRAPH", children=(
            Phase(GRAPH_CONSTRUCTION, construction_ms // 50, peak_rss - 1000, peak_rss - 1000, module="GRAPH"),)))
        start = self.clock.now
        self.poplar("ENGINE", "Poplar Engine Options are clear")
        self.poplar("ENGINE", "Starting phase: lowerProgsAndCompileGraph")
        self.phase(Phase("lowerProgs", compile_ms // 60, peak_rss - 800, peak_rss - 800), 1)
        self.poplar("ENGINE", f'Target info: arch: "ipu2", IPUs: {ipus}, tiles per IPU: {tiles}')
        self.poplar("ENGINE", "Graph info: vertices: 130198, variables: 77702, data-edges: 494551")
        binary_start = self.clock.now
        self.poplar("ENGINE", "Starting phase: createCompiledGraphBinary")  # indent 0 although nested (§8.8)
        if self.sdk == "3":
            self.phase(Phase("lowerEdges", compile_ms // 500, peak_rss - 700, peak_rss - 700), 1)
            if bar:
                self.glue(tqdm_bar(45))
            self.phase(Phase(f"compileGraphTiles [0:{tiles})", compile_ms // 40, None, peak_rss - 300, children=(
                Phase("setLateInitFields", compile_ms // 80, peak_rss - 310, peak_rss - 310),)), 1)
            self.poplar("ENGINE", f"Graph compilation finished: {overflowed}")
            self.phase(Phase("linkObjs", compile_ms // 30, peak_rss, peak_rss - 100), 1)
        else:  # the cookbook's excerpt (ipu-hpc-cookbook, inspecting-compiler-output)
            self.phase(Phase("elimUnusedComputeSets", 0, None, peak_rss - 400), 2)
            self.phase(Phase("smallSubGraphOptimisation", 53, None, peak_rss - 200, children=(
                Phase("findRootNodeCandidates", 10, None, peak_rss - 400),
                Phase("Create adjacencies", 30, None, peak_rss))), 2)
            self.poplar("ENGINE", f"Graph compilation finished: {overflowed}")
        if bar:
            self.glue(tqdm_bar(100, "01:15", "00:00"))
        self.clock.now = binary_start + timedelta(milliseconds=compile_ms * 9 // 10)
        self._end(Phase("createCompiledGraphBinary", compile_ms * 9 // 10, None, peak_rss - 250))
        if bar:
            self.lines.append("" if self.rank is None else f"[1,{self.rank}]<stderr>:")  # tqdm closes its bar
        if self.sdk == "3":
            self.poplar("PERF", "MutableGraph.reset()...done")  # a PO:PERF line that is no timing
        self.clock.now = start + timedelta(milliseconds=compile_ms)
        self._end(Phase("lowerProgsAndCompileGraph", compile_ms, None, peak_rss - 400))

    def load_phases(self, *, prepare_ms: int = 138, load_ms: int = 925, old_form: bool = False) -> None:
        """Loading an executable onto the IPUs: SDK 3.3's two phases, or (``old_form``) the tech note's
        ``Loading executable`` with no ``total RSS``."""
        if old_form:
            self.poplar("ENGINE", "Starting phase: Loading executable")
            self.clock.tick(load_ms)
            self.poplar("ENGINE", f"Ending phase: Loading executable (duration {load_ms:g} ms; diff RSS: "
                                  "0.586426 MB)")
            return
        self.poplar("ENGINE", "Attached to device 0")
        self.phase(Phase(PREPARE_LOAD, prepare_ms, None, 11785.383, children=(
            Phase("Initialise Registers", 0, 11785.4, 11785.383),)))
        self.phase(Phase(LOAD, load_ms, None, 11633.903, children=(
            Phase("Load IPU Executable", load_ms - 57, 13004.1, 13004.055),)),
            before_end=())

    # -- PopART, PopXL, PopTorch (§8.9-§8.10) ------------------------------------------------------------------

    def popart_table(self, heading: str, bar: bool = False) -> None:
        """A multi-line INFO record: the prefixed line ends in ``I: `` and the table follows unprefixed."""
        if bar:
            self.glue(tqdm_bar(36, "00:29", "03:52"))
        self.popart("devicex", "")
        tag = "" if self.rank is None else f"[1,{self.rank}]<stderr>:"
        self.lines += [tag + line for line in (heading, *TIME_TABLE, "")]

    def popart_compile(self, *, ir_hash: str | None, cache_dir: str | None, construction_ms: int,
                       compile_ms: int, peak_rss: float, bar: bool = False, first_time: bool = True,
                       load: bool = True) -> None:
        """PopART's cache miss, in the whisper run's order: Poplar's phases, Graph compiled, the cache write.

        Its phase timings add up to ``construction_ms + compile_ms``.
        """
        self.popart("session", "Popart version: 3.3.0+7857 (b88fd7c399)")
        if bar:
            self.glue(tqdm_bar(0, "00:00", "?"))
        self.popart("popart", 'Onnx Model Info ir_version:4, producer:., domain:"", model_version:0 num_opsets:2')
        self.popart("devicex", "Setting selected device: Device Type:ipu Connection Type:always Id:0 "
                               "Version:1.0.56 NumIPUs:1 NumTilesPerIPU:1472 DeviceIds: {0}")
        if bar:
            self.glue(tqdm_bar(3, "00:00", "00:12"))
        self.popart("devicex", "Poplar version: 3.3.0 (de1f8de2a7)")
        start = self.clock.now
        self.poplar("GRAPH", "Starting phase: graphConstruction")
        self.poplar("UTIL", "Using temp directory '/tmp/'")
        self.popart("devicex", "Poplar graph initialised")
        if bar:
            self.glue(tqdm_bar(6, "00:00", "00:15"))
        self.phase(Phase(GRAPH_CONSTRUCTION, construction_ms // 50, peak_rss - 1000, peak_rss - 1000, module="GRAPH"))
        self.clock.now = start + timedelta(milliseconds=construction_ms)
        self.popart_table("Next step is poplar Engine creation. Breakdown of compile time so far:", bar=bar)
        self.popart("devicex", "Starting compilation")
        self._end(Phase(GRAPH_CONSTRUCTION, construction_ms, peak_rss - 900, peak_rss - 900, module="GRAPH"))
        start = self.clock.now
        self.poplar("ENGINE", "Poplar Engine Options are clear")
        self.poplar("ENGINE", "Starting phase: lowerProgsAndCompileGraph")
        self.phase(Phase("lowerProgs", compile_ms // 60, peak_rss - 800, peak_rss - 800), 1)
        self.poplar("ENGINE", 'Target info: arch: "ipu2", IPUs: 1, tiles per IPU: 1472')
        if bar:
            self.glue(tqdm_bar(45))
        self.phase(Phase("setXreqTiles", 0, peak_rss - 700, peak_rss - 700), 2)
        self.phase(Phase("linkObjs", compile_ms // 30, peak_rss, peak_rss - 100), 1)
        self.poplar("ENGINE", "Graph compilation finished: zero tiles overflowed.")
        if bar:
            self.glue(tqdm_bar(100, "01:15", "00:00"))
        self.clock.now = start + timedelta(milliseconds=compile_ms)
        self._end(Phase("lowerProgsAndCompileGraph", compile_ms, None, peak_rss - 400))
        if bar:
            self.lines.append("" if self.rank is None else f"[1,{self.rank}]<stderr>:")  # tqdm closes its bar
        self.popart("devicex", "Graph compiled")
        self.poplar("ENGINE", "Poplar Engine Options are clear")
        if cache_dir is not None and ir_hash is not None:
            if first_time:
                self.popart("devicex", f'Specified directory not found. Creating "{cache_dir}" directory ',
                            level="W")
            self.popart("devicex", f"Saving serialized Executablex to {cache_dir}/{ir_hash}.popef")
            self.poplar("TARGET", "Serializing executable")
            self.poplar("TARGET", "Writing Graphcore binary of 358612048 bytes")
            self.poplar("TARGET", "Executable serialized")
        self.popart_table("poplar Engine construction complete. Breakdown of compile time:")
        if load:
            self.load_phases()
            self.popart("devicex", "Engine loaded")

    def popart_hit(self, *, ir_hash: str, cache_dir: str, others: Sequence[str] = (), load: bool = True) -> None:
        """PopART's cache hit, in the order of session.cpp and devicex.cpp (no public log shows one)."""
        self.popart("session", "Popart version: 3.3.0+7857 (b88fd7c399)")
        for other in others:
            self.popart("session", f"PopEF file inferred to have hash '{other}' has been found: {cache_dir}/{other}"
                                   ".popef")
        self.popart("session", f"PopEF file inferred to have hash '{ir_hash}' has been found: {cache_dir}/{ir_hash}"
                               ".popef")
        self.popart("ir", "Ir hash matched cached value. Skipping Ir preparation")
        self.popart("session", f"Loading serialized PopART executable from {cache_dir}/{ir_hash}.popef")
        self.clock.tick(412)
        self.popart_table("Next step is poplar Engine creation. Breakdown of compile time so far:")
        self.popart("devicex", "Returning CachedExecutable")
        self.popart("devicex", "Restoring profiles from cache")
        self.popart_table("poplar Engine construction complete. Breakdown of compile time:")
        if load:
            self.load_phases()
            self.popart("devicex", "Engine loaded")

    # -- default log levels (§8.5, §8.10): PopTorch's bar, a script's timing line, TensorFlow's XLA line ---------

    def poptorch_bar(self, elapsed_s: int, *, stop: int = 100, glue: str | None = None) -> None:
        """PopTorch's compilation bar as a raw log holds it: one physical line of tqdm frames, each after a
        ``\\r`` (graphcore/poptorch ProgressBar: 0, 3, 4-6 pre-planning, 7-40 sequences, 41-100 Poplar's compile),
        the last redrawn by ``close()`` and ended by its newline; ``stop`` short of 100: the run died there.
        ``glue``: a line another stream wrote before the newline, glued after the last frame (under poprun, with
        its own tag)."""
        steps = [p for p in (0, 3, 6, 23, 40, 41, 45, 60, 97, 100) if p <= stop]
        frames = []
        for p in steps:
            done = elapsed_s * p // 100
            elapsed = _tqdm_clock(done)
            remaining = "?" if p == 0 else _tqdm_clock(elapsed_s - done)
            frames.append(tqdm_bar(p, elapsed, remaining))
        if stop == 100:
            frames.append(frames[-1])  # close() draws the last frame again
        line = "".join("\r" + frame for frame in frames)
        tag = "" if self.rank is None else f"[1,{self.rank}]<stderr>:"
        self.lines.append(tag + line + (glue or ""))
        self.clock.tick(elapsed_s * 1000)

    def script_timing(self, seconds: float, stream: str = "stdout") -> None:
        """Graphcore's examples after ``poptorch_model.compile()``: ``Compiled/Loaded model in X secs`` (print)."""
        tag = "" if self.rank is None else f"[1,{self.rank}]<{stream}>:"
        self.lines.append(f"{tag}Compiled/Loaded model in {seconds!r} secs")

    def tf_xla_cluster(self) -> None:
        """tensorflow/compiler/jit/xla_compilation_cache.cc: once per process, at INFO, after the first cluster."""
        self.tf("Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.",
                file="tensorflow/compiler/jit/xla_compilation_cache.cc")

    # -- TensorFlow (§8.7) -------------------------------------------------------------------------------------

    def tf_compile(self, module: str, hlo_hash: str, *, exe_hash: str | None = None, cache_dir: str | None = None,
                   ms: int = 30_000, poplar: bool = False, vlog2: bool = False, precompile: bool = False,
                   custom_ops: bool = False, peak_rss: float = 5000.0, batch: int | None = None) -> None:
        """A TensorFlow compilation with VLOG on (poplar_compiler=1), in CompileEngine's order.

        ``cache_dir`` set: the lookup misses (``Couldn't find``) and the
        executable is written silently (or, ``precompile``, with the INFO
        line). ``poplar``: Poplar's phases inside (``ms`` is then theirs).
        ``batch``: the HLO dump VLOG 1 prints, its shapes that batch size.
        """
        start = self.clock.now
        if vlog2 and exe_hash is not None:
            self.tf("Creating a new cache entry.", file=TF_CACHE)
            self.tf(f"Module {module} has not been compiled yet (Hash: 0x{exe_hash}).", file=TF_CACHE)
        self.tf(f"Begin XLA compilation: {module}  (Hash: 0x{hlo_hash}) for ordinal  0", at="begin")
        if cache_dir is not None:
            self.tf(f"Couldn't find {cache_dir}/{exe_hash}.poplar_exec in executable cache", at="miss")
        self.clock.tick(1200)
        self.tf(f"End XLA compilation: {module} (Hash: 0x{hlo_hash})", at="end")
        self.tf("Compiling main computation _.1234", at="main")
        if batch is not None:  # XLA_VLOG_LINES: the module's HLO, a line at a time (tensorflow/compiler/xla/util.cc)
            for hlo in (f"HloModule {module}, entry_computation_layout={{(f32[{batch},784]{{1,0}})->f32[]}}", "",
                        "ENTRY %_.1234 (arg0.1: f32[" + str(batch) + ",784]) -> f32[] {",
                        f"  %arg0.1 = f32[{batch},784]{{1,0}} parameter(0), metadata={{op_name=\"XLA_Args\"}}",
                        "}"):
                self.tf(hlo, at="hlo")
        self.tf("Begin Poplar graph construction.", at="main")
        if poplar:
            self.compile_phases(construction_ms=ms * 3 // 10, compile_ms=ms * 7 // 10, peak_rss=peak_rss)
            self.clock.tick(250)
        self.tf(f"Begin compiling Poplar engine {module}", at="engine")
        for percent in (0, 45, 100):
            self.tf(f"Poplar compilation {percent}% complete", at="percent")
        if not poplar:
            self.clock.now = start + timedelta(milliseconds=ms)
        if custom_ops and cache_dir is not None:
            self.tf(CUSTOM_OP, at="custom")
        elif precompile:
            self.tf(f"A pre-compiled Poplar program has been saved to {cache_dir}/{exe_hash}.poplar_exec",
                    at="precompiled")
        self.tf("End compiling Poplar engine.", at="engine_end")

    def tf_hit(self, module: str, hlo_hash: str, exe_hash: str, cache_dir: str, *, ms: float = 840,
               serialization: bool = False) -> None:
        """A cache hit: Begin, (Trying to deserialize, with a serialization folder), Loaded; no End line."""
        self.tf(f"Begin XLA compilation: {module}  (Hash: 0x{hlo_hash}) for ordinal  0", at="begin")
        self.clock.tick(ms)
        if serialization:
            self.tf(f"Trying to deserialize cached file: {cache_dir}/{exe_hash}.poplar_exec", file=TF_EXECUTABLE)
        self.tf(f"Loaded {module} from {cache_dir}/{exe_hash}.poplar_exec", at="loaded")

    def tf_skip(self, module: str, hlo_hash: str, why: str = "output is constant") -> None:
        self.tf(f"Begin XLA compilation: {module}  (Hash: 0x{hlo_hash}) for ordinal  0", at="begin")
        self.clock.tick(35)
        self.tf(f"End XLA compilation: {module} (Hash: 0x{hlo_hash})", at="end")
        self.tf(f"Skip engine compilation - {why}.", at="skip")




# A real SDK 3.3 compile, cache write and load, cut as the research quotes it: graphcore/Gradient-HuggingFace
# (branch 3.3-container-loglevel-ERROR, commit 362129be8483), whisper/whisper-example-py.ipynb, cell 12's stderr,
# notebook lines 1006-1016, 1030-1045, 1612-1616, 1640-1672 and 1685-1708 (the bar glued to lines is real).
WHISPER_EXCERPT = (
    'Graph compilation:   3%|▎         | 3/100 [00:00<00:12]2023-06-29T16:14:58.204652Z popart:devicex 79.79 I:'
    ' Poplar version: 3.3.0 (de1f8de2a7)',
    '2023-06-29T16:14:58.204659Z popart:devicex 79.79 I: Poplar release githash: b67b751185',
    '2023-06-29T16:14:58.205011Z PO:GRAPH    79.79 I: Starting phase: graphConstruction',
    "2023-06-29T16:14:58.206278Z PO:UTIL     79.79 I: Using temp directory '/tmp/'",
    '2023-06-29T16:14:58.210911Z popart:devicex 79.79 I: Poplar graph initialised',
    '2023-06-29T16:14:58.396959Z popart:devicex 79.79 I: Created virtual graph 0 from 0 to 1472',
    '2023-06-29T16:14:58.396997Z popart:devicex 79.79 I: Turning Ops into Opxes',
    'Graph compilation:   6%|▌         | 6/100 [00:00<00:15]2023-06-29T16:14:58.767310Z PO:GRAPH    79.79 I:'
    ' Starting phase: graphConstruction',
    '2023-06-29T16:14:59.309010Z PO:PERF     79.79 I: MutableGraph.reset()...done',
    '2023-06-29T16:14:59.309248Z PO:PERF     79.79 I: graphConstruction: real 541 ms; user 2028 ms; sys 76 ms; max'
    ' RSS: 1132.17 MiB; diff RSS: 2.20312 total RSS: 1132.168000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:14:59.309254Z PO:GRAPH    79.79 I: Ending phase: graphConstruction',
    '2023-06-29T16:15:26.865437Z popart:devicex 79.79 I: Starting compilation',
    '2023-06-29T16:15:26.866208Z PO:PERF     79.79 I: graphConstruction: real 28661 ms; user 55487 ms; sys 29887'
    ' ms; max RSS: 2326.64 MiB; diff RSS: 1260.86 total RSS: 2326.641000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:15:26.866223Z PO:GRAPH    79.79 I: Ending phase: graphConstruction',
    '2023-06-29T16:15:26.866380Z PO:ENGINE   79.79 I: Poplar Engine Options are clear',
    '2023-06-29T16:15:26.866810Z PO:ENGINE   79.79 I: Starting phase: lowerProgsAndCompileGraph',
    '2023-06-29T16:15:26.866864Z PO:ENGINE   79.79 I:   Starting phase: lowerProgs',
    '2023-06-29T16:15:27.638862Z PO:PERF     79.79 I: lowerProgs: real 771 ms; user 1151 ms; sys 279 ms; max RSS:'
    ' 2516.56 MiB; diff RSS: 189.875 total RSS: 2516.563000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:15:27.638890Z PO:ENGINE   79.79 I:   Ending phase: lowerProgs',
    '2023-06-29T16:15:27.785274Z PO:ENGINE   79.79 I: Poplar version 3.3.0 (de1f8de2a7)',
    '2023-06-29T16:15:27.785301Z PO:ENGINE   79.79 I: Poplar package hash b67b751185',
    '2023-06-29T16:15:27.785307Z PO:ENGINE   79.79 I: Target info: arch: "ipu2", IPUs: 1, tiles per IPU: 1472',
    '2023-06-29T16:15:27.785310Z PO:ENGINE   79.79 I: Graph info: vertices: 130198, variables: 77702, data-edges:'
    ' 494551',
    '2023-06-29T16:15:27.785617Z PO:ENGINE   79.79 I: Starting phase: createCompiledGraphBinary',
    '2023-06-29T16:15:27.785671Z PO:ENGINE   79.79 I:   Starting phase: lowerEdges',
    '2023-06-29T16:15:27.891329Z PO:PERF     79.79 I: lowerEdges: real 85 ms; user 79 ms; sys 27 ms; max RSS:'
    ' 2723.87 MiB; diff RSS: 67.6758 total RSS: 2723.868000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:15:27.891353Z PO:ENGINE   79.79 I:   Ending phase: lowerEdges',
    '2023-06-29T16:16:11.345341Z PO:PERF     79.79 I: setLateInitFields: real 728 ms; user 13823 ms; sys 579 ms;'
    ' max RSS: 11470.1 MiB; diff RSS: 117.562 total RSS: 11470.055000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:11.345365Z PO:ENGINE   79.79 I:     Ending phase: setLateInitFields',
    '2023-06-29T16:16:11.345437Z PO:PERF     79.79 I: compileGraphTiles [0:1472): real 1129 ms; user 93083 ms; sys'
    ' 5218 ms; diff RSS: 270.512 total RSS: 11470.055000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:11.345441Z PO:ENGINE   79.79 I:   Ending phase: compileGraphTiles [0:1472)',
    '2023-06-29T16:16:11.350035Z PO:ENGINE   79.79 I: Graph compilation finished: zero tiles overflowed.',
    '2023-06-29T16:16:11.981390Z PO:TARGET   79.79 I: Writing ELF for each tile and ipu host address space',
    '2023-06-29T16:16:12.003234Z PO:TARGET   79.79 I: Writing ELF for each tile and ipu host address space',
    '2023-06-29T16:16:12.003273Z PO:TARGET   79.79 I: Link ELF files end',
    '2023-06-29T16:16:12.003276Z PO:TARGET   79.79 I: Create archive begin',
    '2023-06-29T16:16:12.137220Z PO:TARGET   79.79 I: Create archive end',
    '2023-06-29T16:16:13.294417Z PO:TARGET   79.79 I: IPUTarget: Binary CRC: 0xe13329b7',
    '2023-06-29T16:16:13.297247Z PO:PERF     79.79 I: linkObjs: real 1393 ms; user 3137 ms; sys 3312 ms; max RSS:'
    ' 12008.5 MiB; diff RSS: 511.309 total RSS: 11893.715000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:13.297259Z PO:ENGINE   79.79 I:   Ending phase: linkObjs',
    'Graph compilation:  97%|█████████▋| 97/100 [01:15<00:02]2023-06-29T16:16:13.297344Z PO:ENGINE   79.79 I:  '
    ' Starting phase: freeCGObjects',
    '2023-06-29T16:16:13.356958Z PO:PERF     79.79 I: freeCGObjects: real 59 ms; user 214 ms; sys 17 ms; max RSS:'
    ' 11893.7 MiB; diff RSS: -124.766 total RSS: 11768.950000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:13.356980Z PO:ENGINE   79.79 I:   Ending phase: freeCGObjects',
    '2023-06-29T16:16:13.357537Z PO:ENGINE   79.79 I:   Starting phase: getGraphMetadata',
    '2023-06-29T16:16:13.357915Z PO:PERF     79.79 I: getGraphMetadata: real 0 ms; user 0 ms; sys 0 ms; max RSS:'
    ' 11768.9 MiB; diff RSS: 0 total RSS: 11768.950000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:13.357920Z PO:ENGINE   79.79 I:   Ending phase: getGraphMetadata',
    '2023-06-29T16:16:13.357993Z PO:ENGINE   79.79 I:   Starting phase: createExecutable',
    '2023-06-29T16:16:13.358265Z PO:PERF     79.79 I: createExecutable: real 0 ms; user 0 ms; sys 0 ms; max RSS:'
    ' 11768.9 MiB; diff RSS: 0 total RSS: 11768.950000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:13.358270Z PO:ENGINE   79.79 I:   Ending phase: createExecutable',
    '2023-06-29T16:16:13.358339Z PO:ENGINE   79.79 I:   Starting phase: replicateExecutable',
    '2023-06-29T16:16:13.358445Z PO:PERF     79.79 I: replicateExecutable: real 0 ms; user 0 ms; sys 0 ms; max RSS:'
    ' 11768.9 MiB; diff RSS: 0 total RSS: 11768.950000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:13.358450Z PO:ENGINE   79.79 I:   Ending phase: replicateExecutable',
    'Graph compilation: 100%|██████████| 100/100 [01:15<00:00]2023-06-29T16:16:13.358516Z PO:PERF     79.79 I:'
    ' createCompiledGraphBinary: real 45573 ms; user 324764 ms; sys 77563 ms; diff RSS: 9112.76 total RSS:'
    ' 11768.950000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:13.358520Z PO:ENGINE   79.79 I: Ending phase: createCompiledGraphBinary',
    '',
    '2023-06-29T16:16:13.441267Z PO:PERF     79.79 I: MutableGraph.reset()...done',
    '2023-06-29T16:16:13.460015Z PO:PERF     79.79 I: lowerProgsAndCompileGraph: real 46592 ms; user 326104 ms; sys'
    ' 77903 ms; diff RSS: 9278.7 total RSS: 11605.391000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:13.460035Z PO:ENGINE   79.79 I: Ending phase: lowerProgsAndCompileGraph',
    '2023-06-29T16:16:13.460486Z popart:devicex 79.79 I: Graph compiled',
    '2023-06-29T16:16:13.460643Z PO:ENGINE   79.79 I: Poplar Engine Options are clear',
    '2023-06-29T16:16:13.466437Z popart:devicex 79.79 W: Specified directory not found. Creating'
    ' "/tmp/exe_cache/3.3.0" directory ',
    '2023-06-29T16:16:13.466657Z popart:devicex 79.79 I: Saving serialized Executablex to'
    ' /tmp/exe_cache/3.3.0/4961678486983961202.popef',
    '2023-06-29T16:16:13.467325Z PO:TARGET   79.79 I: Serializing executable',
    '2023-06-29T16:16:13.607263Z PO:TARGET   79.79 I: Writing Graphcore binary of 358612048 bytes',
    '2023-06-29T16:16:13.966115Z PO:TARGET   79.79 I: Executable serialized',
    '2023-06-29T16:16:13.989736Z PO:ENGINE   79.79 I: Attached to device 0',
    '2023-06-29T16:16:13.990326Z PO:ENGINE   79.79 I: Starting phase: Preparing to load executable',
    '2023-06-29T16:16:13.990371Z PO:TARGET   79.79 I: Poplar exe compiled with 1 replicas for a V-IPU partition'
    ' configured for 1 replicas',
    '2023-06-29T16:16:14.027199Z PO:TARGET   79.79 I: IPUDevice::configureLinks apply true',
    '2023-06-29T16:16:14.027212Z PO:TARGET   79.79 I: Sync group[0][0] = master 0; ipus {0} ',
    '2023-06-29T16:16:14.027215Z PO:TARGET   79.79 I: Sync group[1][0] = master 0; ipus {0} ',
    '2023-06-29T16:16:14.058591Z PO:TARGET   79.79 I: Loading secondary bootloader',
    '2023-06-29T16:16:14.127622Z PO:TARGET   79.79 I: Finished device preparation',
    '2023-06-29T16:16:14.127837Z PO:ENGINE   79.79 I:   Starting phase: Initialise Registers',
    '2023-06-29T16:16:14.128218Z PO:PERF     79.79 I: Initialise Registers: real 0 ms; user 0 ms; sys 0 ms; max'
    ' RSS: 11785.4 MiB; diff RSS: 0 total RSS: 11785.383000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:14.128225Z PO:ENGINE   79.79 I:   Ending phase: Initialise Registers',
    '2023-06-29T16:16:14.128289Z PO:PERF     79.79 I: Preparing to load executable: real 138 ms; user 3 ms; sys 40'
    ' ms; diff RSS: 2.80469 total RSS: 11785.383000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:14.128292Z PO:ENGINE   79.79 I: Ending phase: Preparing to load executable',
    '2023-06-29T16:16:14.128403Z PO:ENGINE   79.79 I: Starting phase: Loading executable',
    '2023-06-29T16:16:14.128470Z PO:ENGINE   79.79 I:   Starting phase: Load IPU Executable',
    '2023-06-29T16:16:14.405793Z PO:TARGET   79.79 I: Begin Loading [0-0]',
    '2023-06-29T16:16:14.680772Z PO:TARGET   79.79 I: End Loading [0-0]',
    '2023-06-29T16:16:14.680814Z PO:TARGET   79.79 I: Starting application',
    '2023-06-29T16:16:14.680828Z PO:TARGET   79.79 I: App started by secondary loader',
    '2023-06-29T16:16:14.997864Z PO:PERF     79.79 I: Load IPU Executable: real 868 ms; user 666 ms; sys 275 ms;'
    ' max RSS: 13004.1 MiB; diff RSS: 1218.67 total RSS: 13004.055000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:14.997890Z PO:ENGINE   79.79 I:   Ending phase: Load IPU Executable',
    '2023-06-29T16:16:15.054564Z PO:PERF     79.79 I: Loading executable: real 925 ms; user 671 ms; sys 328 ms;'
    ' diff RSS: -151.48 total RSS: 11633.903000 MiB; current heap usage: 0.000000 MiB',
    '2023-06-29T16:16:15.054592Z PO:ENGINE   79.79 I: Ending phase: Loading executable',
    '2023-06-29T16:16:15.054613Z popart:devicex 79.79 I: Engine loaded',
)


# -- whole runs several test modules read, and the row a compilation is expected as ---------------------------

def row(source: str, line: int, **fields) -> Compilation:
    """A compilation with every field unknown but those given."""
    base = {"end_line": None, "process": None, "framework": "tensorflow", "time": None, "module": None,
            "hash": None, "executable_hash": None, "result": None, "cache": None, "duration_s": None,
            "duration_from": None, "peak_rss_mb": None, "tiles_overflowed": None, "target": None, "cache_file": None}
    base.update(fields)
    return Compilation(source=source, line=line, **base)


def write(tmp_path, name: str, builder: LogBuilder | str) -> str:
    """The log (a builder's text, or text) at ``tmp_path/name`` in UTF-8; its path as a string."""
    path = tmp_path / name
    path.write_text(builder if isinstance(builder, str) else builder.text(), encoding="utf-8")
    return str(path)


def popart_cold(clock: Clock | None = None, rank: int | None = 0) -> LogBuilder:
    """A PopTorch run under poprun that compiles (a cache miss) and saves its executable to /tmp/exe_cache."""
    log = LogBuilder(clock=clock or Clock(), rank=rank)
    log.poptorch("POPTORCH_CACHE_DIR is set: setting cache path to /tmp/exe_cache")
    log.noise(2)
    log.popart_compile(ir_hash="4961678486983961202", cache_dir="/tmp/exe_cache", construction_ms=28661,
                       compile_ms=46592, peak_rss=12008.5, bar=True)
    log.noise(3)
    log.poprun("Waiting for mpirun (PID 3556098)", "D")
    log.poprun("mpirun (PID 3556098) terminated with exit code 0")
    return log


def popart_warm(clock: Clock) -> LogBuilder:
    """The same model run again: the executable :func:`popart_cold` saved is found and loaded (a cache hit)."""
    log = LogBuilder(clock=clock, rank=0)
    log.poptorch("POPTORCH_CACHE_DIR is set: setting cache path to /tmp/exe_cache")
    log.popart_hit(ir_hash="4961678486983961202", cache_dir="/tmp/exe_cache", others=["1180392781727713004"])
    log.noise(3)
    return log


def tf_batch_size_change() -> LogBuilder:
    """Two epochs whose last batch is smaller: the same module gets a second hash and is compiled again, and
    from then on every epoch switches between the two executables (TensorFlow keeps both in memory)."""
    log = LogBuilder()
    log.tf("Poplar version: 3.3.0 (de1f8de2a7) Poplar package: b67b751185",
           file="tensorflow/compiler/plugin/poplar/driver/poplar_platform.cc")
    log.tf("TensorFlow device /device:IPU:0 attached to 1 IPU with Poplar device ID: 0",
           file="tensorflow/compiler/plugin/poplar/driver/poplar_executor.cc")
    for epoch in (1, 2):
        if epoch == 1:
            log.tf_compile("cluster_train", "5f1e0b9c3a7d2e11", exe_hash="9c4d2a7b18e0f3",
                           cache_dir="/data/tf_cache", ms=41000, poplar=True, vlog2=True, peak_rss=6120.5, batch=32)
        log.load_phases()
        log.noise(4)
        if epoch == 1:
            log.tf_compile("cluster_train", "a27c04e9d51b6f3", exe_hash="3e81f0c2d97a5b4",
                           cache_dir="/data/tf_cache", ms=39500, poplar=True, vlog2=True, peak_rss=6011.25, batch=16)
        log.load_phases()
        log.noise(2)
    return log
