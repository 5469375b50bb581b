"""Reading a sampled profile of benchmarks/_drive.py (benchmarks/order_cpu.py `--profile`): the
costliest Python functions, and each sample attributed to a stage of the request (or of the
delivery). docs/performance.md explains the figures.

Both samplers write py-spy's raw format: one line per distinct stack, root first,
`frame;frame;... count`, a frame being `function (file:first line)`. The `cpu` sampler
(`_drive.CpuSampler`) has Python frames only; py-spy (`--native --gil --function
--full-filenames --format raw`) adds the C frames of the extensions and keeps only samples
where the process held the GIL (an idle event loop waits without it).

A py-spy sample waiting in a system call (its innermost frame one of `SYSCALLS` in libc) is
set apart: on a loaded machine, such a sample is mostly time spent runnable but off the CPU
after a write woke a PostgreSQL backend, not work. The `cpu` sampler never sees that time.

A sample's stage is, in this order: the first of the run's overrides that any of its frames
matches (a commit, the connection cache's round trip, the request log, the background tasks,
the garbage collector when C frames show it), else the stage of its innermost frame that one
of the run's rules matches (so time in SQLAlchemy called by a repository is SQL, time in
pydantic called by the body reader is body parsing), else the event loop's (a sample taken
while uvloop's C code ran, with the asyncpg protocol it calls and the kernel's socket work).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

SYSCALLS = {
    "write", "writev", "read", "readv", "send", "sendto", "sendmsg", "recv", "recvfrom", "recvmsg",
    "epoll_wait", "epoll_pwait", "poll", "select", "clock_nanosleep", "nanosleep", "fstatat64", "newfstatat",
    "openat", "close", "getpid", "futex", "__futex_abstimed_wait_common",
}  # fmt: skip


@dataclass(frozen=True)
class Frame:
    function: str
    file: str
    line: int

    @classmethod
    def parse(cls, text: str) -> Frame:
        match = re.match(r"(.*) \((.*?)(?::(\d+))?\)$", text)
        if not match:
            return cls(text, "", 0)
        return cls(match.group(1), match.group(2), int(match.group(3) or 0))

    @property
    def python(self) -> bool:
        return self.file.endswith(".py") or self.file.startswith("<frozen")

    def __str__(self) -> str:
        where = f"{short_path(self.file)}:{self.line}" if self.line else Path(self.file).name
        return f"{self.function} ({where})"


def short_path(file: str) -> str:
    """`comptoir/http/routing.py`, `sqlalchemy/orm/session.py`, `asyncio/tasks.py`."""
    for marker in ("/src/", "/site-packages/", "/lib/python3.11/", "/benchmarks/"):
        if marker in file:
            return ("benchmarks/" if marker == "/benchmarks/" else "") + file.split(marker, 1)[1]
    return file


Match = Callable[[Frame], bool]


def files(*parts: str) -> Match:
    """A frame whose file path contains one of `parts` (`/sqlalchemy/`, `comptoir/auth/`)."""
    return lambda frame: any(part in frame.file for part in parts)


def functions(file_part: str, *names: str) -> Match:
    """A frame of one of the functions `names` (qualified as py-spy shows them) in a file."""
    return lambda frame: file_part in frame.file and frame.function in names


def named(pattern: str, *file_parts: str) -> Match:
    regex = re.compile(pattern)
    return lambda frame: any(part in frame.file for part in file_parts) and bool(regex.search(frame.function))


CLIENT = "client (the harness's)"
PROTOCOL = "protocol and middleware"
AUTH = "authentication and rate limit"
CACHE_SYNC = "connection cache sync (LISTEN round trip)"
BODY = "body parse and validation"
RULES_STAGE = "rules (service)"
IDS = "ids"
RENDER = "rendering (read shape, JSON)"
SQL_BUILD = "SQL: statements, ORM, results (SQLAlchemy, repositories)"
SQL_DRIVER = "SQL: driver (asyncpg, db/direct.py)"
COMMIT = "commit"
ACCESS_LOG = "logging: log lines (structlog)"
REQUEST_LOG = "logging: request log (record, flush)"
METRICS = "metrics (prometheus)"
BACKGROUND = "background tasks (worker, cache, jobs)"
GC = "garbage collection"
LOOP = "event loop, socket I/O, C callbacks"  # no Python frame of its own: uvloop, the kernel

# any frame of a sample: these decide before the innermost frame does
OVERRIDES: list[tuple[str, Match]] = [
    (GC, named(r"^(gc_collect_main|gc_collect_with_callback|collect)$", "libpython", "gcmodule.c")),
    (REQUEST_LOG, files("comptoir/request_logs/buffer.py")),  # the buffer, and its flush every second
    (REQUEST_LOG, functions("comptoir/http/middleware.py", "BodyTap.record", "BodyTap.receive", "BodyTap.send")),
    (ACCESS_LOG, functions("comptoir/http/middleware.py", "access_log")),
    (BACKGROUND, files("comptoir/jobs/", "comptoir/callbacks/worker.py")),
    (BACKGROUND, functions("comptoir/kit/metrics.py", "watch_loop_lag")),
    (BACKGROUND, functions("comptoir/db/connection_cache.py", "ConnectionCache._keep_listening")),
    (CACHE_SYNC, functions("comptoir/db/connection_cache.py", "ConnectionCache._sync_all", "ConnectionCache.synced")),
    (COMMIT, named(r"commit", "/sqlalchemy/", "/asyncpg/")),
]

# The innermost frame that matches one of these decides (first match in this order). Shared
# helpers (the stdlib's json, kit/money, kit/wire, ...) match none: their caller decides.
RULES: list[tuple[str, Match]] = [
    (CLIENT, files("/httpx/", "/httpcore/")),
    (CLIENT, named(r"^(AsgiClient|drive_requests)", "benchmarks/_drive.py")),
    (ACCESS_LOG, files("/structlog/", "/logging/", "comptoir/observe/logs.py")),
    (METRICS, files("/prometheus_client/", "comptoir/kit/metrics.py", "/opentelemetry/", "comptoir/kit/tracing.py")),
    (IDS, files("comptoir/db/ids.py", "comptoir/kit/ids.py")),
    (BODY, functions("comptoir/http/routing.py", "read_json_body")),
    (BODY, functions("comptoir/kit/jsonutil.py", "loads")),
    (BODY, files("comptoir/http/bodies.py", "comptoir/kit/jsonstream.py", "/schemas.py")),
    (RENDER, named(r"model_dump|dump_python|dump_json|serializ", "/pydantic/", "/pydantic_core/")),
    (BODY, files("/pydantic/", "/pydantic_core/", "/annotated_types/")),
    (RENDER, functions("comptoir/kit/jsonutil.py", "dumps", "dumps_str", "dumps_checked", "loads_stored")),
    (RENDER, functions("comptoir/locations/service.py", "render_location")),
    (RENDER, files("/render.py", "comptoir/events/payload.py", "/orjson/")),
    (RENDER, functions("comptoir/http/routing.py", "JSON.render", "JSON.__init__")),
    (SQL_DRIVER, files("/asyncpg/", "comptoir/db/direct.py")),
    (SQL_BUILD, files("/sqlalchemy/", "comptoir/db/unit.py", "comptoir/db/engine.py", "comptoir/db/keyset.py")),
    (SQL_BUILD, files("/repository.py", "comptoir/models/")),
    (AUTH, files("comptoir/auth/", "comptoir/ratelimit/", "comptoir/db/connection_cache.py")),
    (RULES_STAGE, files("/service.py", "comptoir/orders/totals.py", "comptoir/orders/elements.py")),
    (RULES_STAGE, files("comptoir/events/", "comptoir/customers/hooks.py", "comptoir/core/")),
    (PROTOCOL, files("/starlette/", "/fastapi/", "/uvicorn/", "/anyio/", "comptoir/http/", "comptoir/app.py")),
]

# a delivery (`comptoir worker`): what the worker does with a lane
DELIVERY_CLAIM = "claim, lease, release, poll"
DELIVERY_DUE = "read due events (SQL)"
DELIVERY_RENDER = "render the payload"
DELIVERY_SIGN = "sign (HMAC, Standard Webhooks)"
DELIVERY_POST = "POST (aiohttp client, address check)"
DELIVERY_RECORD = "record outcomes and delivery log (SQL)"

DELIVERY_OVERRIDES: list[tuple[str, Match]] = [
    (GC, named(r"^(gc_collect_main|gc_collect_with_callback|collect)$", "libpython", "gcmodule.c")),
    (BACKGROUND, files("comptoir/jobs/")),
    (BACKGROUND, functions("comptoir/kit/metrics.py", "watch_loop_lag")),
    (COMMIT, named(r"commit", "/sqlalchemy/", "/asyncpg/")),
]
DELIVERY_RULES: list[tuple[str, Match]] = [
    (ACCESS_LOG, functions("comptoir/callbacks/worker.py", "delivered")),  # its log line, its metric
    (ACCESS_LOG, files("/structlog/", "/logging/", "comptoir/observe/logs.py")),
    (METRICS, files("/prometheus_client/", "comptoir/kit/metrics.py", "/opentelemetry/", "comptoir/kit/tracing.py")),
    (DELIVERY_SIGN, files("comptoir/callbacks/signing.py", "/hmac.py", "_hashopenssl", "libcrypto")),
    (DELIVERY_RENDER, files("comptoir/events/payload.py", "comptoir/kit/jsonutil.py")),
    (IDS, files("comptoir/kit/ids.py", "comptoir/db/ids.py")),
    (DELIVERY_POST, files("/aiohttp/", "/yarl/", "/multidict/", "/aiohappyeyeballs/", "comptoir/callbacks/sending.py")),
    (DELIVERY_POST, files("comptoir/callbacks/client.py", "/asyncio/streams.py")),
    (DELIVERY_POST, files("comptoir/callbacks/addresses.py", "/_http_parser", "/_http_writer")),
    (DELIVERY_POST, functions("comptoir/callbacks/worker.py", "DeliveryWorker._send")),
    (DELIVERY_DUE, functions("comptoir/callbacks/worker.py", "DeliveryWorker._due", "DeliveryWorker._still_due")),
    (DELIVERY_RECORD, functions("comptoir/callbacks/worker.py", "DeliveryWorker._record", "DeliveryWorker._write")),
    (DELIVERY_CLAIM, functions("comptoir/callbacks/worker.py", "DeliveryWorker._claim", "DeliveryWorker._release")),
    (DELIVERY_CLAIM, functions("comptoir/callbacks/worker.py", "DeliveryWorker._renew", "DeliveryWorker.run")),
    (DELIVERY_CLAIM, functions("comptoir/callbacks/worker.py", "DeliveryWorker._extend")),
    (SQL_DRIVER, files("/asyncpg/", "comptoir/db/direct.py")),
    (SQL_BUILD, files("/sqlalchemy/", "comptoir/db/", "/repository.py", "comptoir/models/")),
]
# inside the worker, SQL is told apart by the worker's step that asked for it
DELIVERY_STEPS = {DELIVERY_DUE, DELIVERY_RECORD, DELIVERY_CLAIM}

# an idle process (`idle`): which timer the work is for
IDLE_OVERRIDES: list[tuple[str, Match]] = [
    (GC, named(r"^(gc_collect_main|gc_collect_with_callback|collect)$", "libpython", "gcmodule.c")),
    ("delivery worker's poll (every 0.2 s)", files("comptoir/callbacks/worker.py")),
    ("timed jobs (every second)", files("comptoir/jobs/")),
    ("request log flush (every second)", files("comptoir/request_logs/buffer.py")),
    ("connection cache listener", files("comptoir/db/connection_cache.py")),
    ("event loop lag watch (every 0.5 s)", functions("comptoir/kit/metrics.py", "watch_loop_lag")),
]
RULESETS: dict[str, tuple[list[tuple[str, Match]], list[tuple[str, Match]]]] = {
    "delivery": (DELIVERY_OVERRIDES, DELIVERY_RULES),
    "idle": (IDLE_OVERRIDES, []),
}


@dataclass
class Profile:
    stacks: Counter[tuple[Frame, ...]]
    waiting: int = 0  # samples in a system call (see the module's docstring)
    stages: Counter[str] = field(default_factory=Counter)

    @classmethod
    def read(cls, path: Path, kind: str) -> Profile:
        stacks: Counter[tuple[Frame, ...]] = Counter()
        waiting = 0
        for line in path.read_text().splitlines():
            text, _, count = line.rpartition(" ")
            frames = tuple(Frame.parse(part) for part in text.split(";"))
            if frames[-1].file.endswith("libc.so.6") and frames[-1].function in SYSCALLS:
                waiting += int(count)
                continue
            stacks[frames] += int(count)
        profile = cls(stacks, waiting)
        for frames, samples in stacks.items():
            profile.stages[stage(frames, kind)] += samples
        return profile

    @property
    def samples(self) -> int:
        return sum(self.stacks.values())

    def own(self) -> Counter[Frame]:
        """Samples whose innermost Python frame is the function (C code it calls included)."""
        counts: Counter[Frame] = Counter()
        for frames, count in self.stacks.items():
            python = [frame for frame in frames if frame.python]
            if python:
                counts[python[-1]] += count
        return counts

    def cumulative(self) -> Counter[Frame]:
        """Samples with the Python function anywhere on the stack (once per sample)."""
        counts: Counter[Frame] = Counter()
        for frames, count in self.stacks.items():
            for frame in {frame for frame in frames if frame.python}:
                counts[frame] += count
        return counts

    def wrappers(self, slack: float) -> set[Frame]:
        """The Python functions nearly all of whose samples are in one function they call
        directly (within `slack` samples): a middleware calling the next one."""
        cumulative = self.cumulative()
        callees: dict[Frame, set[Frame]] = {}
        for frames in self.stacks:
            python = [frame for frame in frames if frame.python]
            for caller, callee in itertools.pairwise(python):
                if caller != callee:
                    callees.setdefault(caller, set()).add(callee)
        return {
            caller
            for caller, called in callees.items()
            if max(cumulative[callee] for callee in called) >= cumulative[caller] - slack
        }


def harness(frame: Frame) -> bool:
    """A frame of the benchmark's own client or loop runner."""
    return any(part in frame.file for part in ("/httpx/", "/httpcore/", "benchmarks/_drive.py", "/uvloop/"))


def stage(frames: tuple[Frame, ...], kind: str) -> str:
    """The stage of one sample of a run of `kind` (see the module's docstring)."""
    overrides, rules = RULESETS.get(kind, (OVERRIDES, RULES))
    delivery = kind == "delivery"
    for name, match in overrides:
        if any(match(frame) for frame in frames):
            return name
    for frame in reversed(frames):
        for name, match in rules:
            if match(frame):
                if delivery and name in (SQL_BUILD, SQL_DRIVER):  # the worker's step that sent it
                    return next((s for f in reversed(frames) for s, m in rules if s in DELIVERY_STEPS and m(f)), name)
                return name
    return LOOP
