"""Instructions per request, counted by callgrind, and the functions they go to: the figures
of the hot paths that move least with the machine's load, for comparing two checkouts (or a
change) measured at the same time (docs/operations.md "Benchmarks": a loaded machine still
raises every count). docs/performance.md holds the figures and how to read them.

Kinds (benchmarks/_drive.py): `post` (an order creation, the realistic 2.5 KB order of
benchmarks/orders.py), `get` (an order GET), `list` (a page of 100 orders), `location`
(`GET /v1/location`) and `delivery`
(one callback delivery by `comptoir worker` to a local receiver). The requests go through the
app's ASGI interface, in one process (a bare client, about 1% of the samples), on
PostgreSQL, with the production defaults: rate limits on (in-process counters), request log
on, log level info; `--lean` turns the three off, as the figures measured before
docs/performance.md were. The timers whose cost is per second (the delivery worker's poll,
the timed jobs) are off: under callgrind they would fire ~50x as often per request.

Each kind is counted twice under `valgrind --tool=callgrind`: warm-up only, and warm-up then
`--requests`; a request costs the difference, divided by `--requests` (the request kinds share
one warm-up-only run). The callgrind outputs are then read (`Profile`) and the `--top`
costliest functions of the same difference listed: by self cost, by inclusive cost (only the
functions outside any recursion, whose inclusive cost is exact: callgrind_annotate shows the
interpreter's at several times the program's total), and the self cost by object file.
Python code shows there as the interpreter's C functions; benchmarks/order_cpu.py `--profile`
gives the Python functions and the stages. Needs valgrind (Debian: `apt-get install -y
valgrind`); valgrind is ~50x slower, so a run takes several minutes per kind.

    uv run python benchmarks/order_instructions.py
    uv run python benchmarks/order_instructions.py --kind post --kind delivery --requests 200 --top 15 --keep /tmp/cg

The PostgreSQL databases `comptoir_bench_instructions` and `comptoir_bench_instructions_deliveries`
(`--database`) are (re)created by each run. `--keep DIR` keeps the callgrind outputs and the
children's logs there.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from _drive import LABELS, LOG_NAME, Setup, prepared

WARM_UP = 60
REQUEST_KINDS = ("post", "get", "list", "location", "health")
COUNTED = (*REQUEST_KINDS, "delivery")  # not `idle`: under callgrind its timers fire late
ENTRY_SHARE = 0.9  # an inclusive cost above this share of a request is the entry chain's


@dataclass
class Run:
    instructions: int
    output: Path  # callgrind's file


def counted(setup: Setup, kind: str, requests: int) -> Run:
    """One child run (benchmarks/_drive.py) under callgrind: `kind` is `none` for the request
    kinds' warm-up-only run, `delivery` with 0 requests for the deliveries'."""
    if kind == "delivery":
        setup.queue(WARM_UP + requests)
    name = f"{kind}-{requests}"
    output, log = setup.work / f"callgrind.{name}.out", setup.work / f"valgrind.{name}.log"
    command = [
        "valgrind", "--tool=callgrind", f"--callgrind-out-file={output}", f"--log-file={log}",
        *setup.child(kind, requests, WARM_UP),
    ]  # fmt: skip
    with (setup.work / LOG_NAME).open("ab") as child_log:
        done = subprocess.run(command, env=setup.child_env(kind), stdout=child_log, stderr=child_log)
    if done.returncode != 0:
        tail = (setup.work / LOG_NAME).read_text()[-3000:]
        raise SystemExit(f"the run of {name} under callgrind failed (logs in {setup.work}):\n{tail}")
    return Run(int(re.findall(r"Collected : (\d+)", log.read_text())[-1]), output)


@dataclass
class Profile:
    """A callgrind output read whole: the self cost of each function, the cost of each call
    arc (callgrind measures a call's cost from the call to its return), and the functions
    that are part of a recursion."""

    own: dict[Function, int]
    calls: dict[tuple[Function, Function], int]

    @classmethod
    def read(cls, path: Path) -> Profile:
        own: dict[Function, int] = defaultdict(int)
        calls: dict[tuple[Function, Function], int] = defaultdict(int)
        names: dict[str, dict[str, str]] = {"ob": {}, "fn": {}}
        obj = function = callee_obj = callee = ""
        in_call = False

        def name(space: str, value: str) -> str:  # callgrind's name compression: "(id) name" once, "(id)" after
            match = re.match(r"\((\d+)\)(?: (.*))?", value)
            if not match:
                return value
            if match.group(2) is not None:
                names[space][match.group(1)] = match.group(2)
            return names[space][match.group(1)]

        for line in path.read_text(errors="replace").splitlines():
            if not line or line[0] in "#":
                continue
            if line[0].isdigit() or line[0] in "+-*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if in_call:
                    calls[((obj, function), (callee_obj or obj, callee))] += cost
                    in_call, callee_obj = False, ""
                else:
                    own[(obj, function)] += cost
                continue
            key, _, value = line.partition("=")
            if key == "ob":
                obj = Path(name("ob", value)).name
            elif key == "cob":
                callee_obj = Path(name("ob", value)).name
            elif key == "fn":
                function = _plain(name("fn", value))
            elif key == "cfn":
                callee = _plain(name("fn", value))
            elif key == "calls":
                in_call = True
        return cls(dict(own), dict(calls))

    def recursive(self) -> set[Function]:
        """The functions on a cycle of the call graph (Tarjan's strongly connected components):
        their inclusive cost counts nested activations again, so callgrind_annotate shows the
        interpreter's at several times the program's total."""
        edges: dict[Function, list[Function]] = defaultdict(list)
        for caller, callee in self.calls:
            edges[caller].append(callee)
        index: dict[Function, int] = {}
        low: dict[Function, int] = {}
        stack: list[Function] = []
        on_stack: set[Function] = set()
        cyclic: set[Function] = set()
        for root in list(edges):
            if root in index:
                continue
            work = [(root, iter(edges[root]))]
            index[root] = low[root] = len(index)
            stack.append(root)
            on_stack.add(root)
            while work:
                node, children = work[-1]
                for child in children:
                    if child not in index:
                        index[child] = low[child] = len(index)
                        stack.append(child)
                        on_stack.add(child)
                        work.append((child, iter(edges[child])))
                        break
                    if child in on_stack:
                        low[node] = min(low[node], index[child])
                else:
                    work.pop()
                    if work:
                        low[work[-1][0]] = min(low[work[-1][0]], low[node])
                    if low[node] == index[node]:
                        component = []
                        while True:
                            member = stack.pop()
                            on_stack.discard(member)
                            component.append(member)
                            if member == node:
                                break
                        if len(component) > 1 or (node, node) in self.calls:
                            cyclic.update(component)
        return cyclic

    def inclusive(self, exact_only: set[Function]) -> dict[Function, int]:
        """Self cost plus the cost of the calls made, for the functions outside any cycle."""
        total = {f: self.own.get(f, 0) for f in exact_only}
        for (caller, callee), cost in self.calls.items():
            if caller in total and callee != caller:
                total[caller] += cost
        return total


Function = tuple[str, str]  # (object file, function name)


def _plain(function: str) -> str:
    """A function's name without callgrind's recursion depth (`'2`)."""
    return re.sub(r"'\d+$", "", function)


def per_request(base: dict[Function, int], run: dict[Function, int], requests: int) -> dict[Function, float]:
    return {f: (cost - base.get(f, 0)) / requests for f, cost in run.items()}


def top(costs: dict[Function, float], count: int) -> list[tuple[Function, float]]:
    return sorted(costs.items(), key=lambda item: -item[1])[:count]


def by_object(costs: dict[Function, float]) -> dict[str, float]:
    objects: dict[str, float] = defaultdict(float)
    for (obj, _), cost in costs.items():
        objects[obj] += cost
    return dict(objects)


def report(kind: str, base: Run, run: Run, requests: int, count: int) -> float:
    """Print a kind's instructions per request and where they go; returns the figure."""
    figure = (run.instructions - base.instructions) / requests
    print(f"\n{LABELS[kind]}: {figure:,.0f} instructions per request", flush=True)
    if not count:
        return figure
    before, after = Profile.read(base.output), Profile.read(run.output)
    own = per_request(before.own, after.own, requests)
    exact = (set(after.own) | {caller for caller, _ in after.calls}) - after.recursive()
    inclusive = per_request(before.inclusive(exact), after.inclusive(exact), requests)
    # the process's entry chain (main, Py_RunMain, ...) holds nearly all of a request: left out
    inclusive = {f: cost for f, cost in inclusive.items() if cost < ENTRY_SHARE * figure}
    tables = (
        ("self cost", top(own, count)),
        ("inclusive cost, functions outside the interpreter's recursion", top(inclusive, count)),
        ("self cost by object file", sorted(by_object(own).items(), key=lambda item: -item[1])[:count]),
    )
    for title, rows in tables:
        print(f"  the {count} costliest by {title} (instructions per request, share of the request)")
        for name, cost in rows:
            label = name if isinstance(name, str) else f"{name[1]} ({name[0]})"
            print(f"  {cost:>14,.0f} {100 * cost / figure:>6.1f}%  {label}")
    return figure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", action="append", choices=COUNTED, help="repeat for several (default: all)")
    parser.add_argument("--requests", type=int, default=200, help="measured requests of each kind")
    parser.add_argument("--top", type=int, default=15, help="functions listed per kind and cost (0: none)")
    parser.add_argument("--database", default="comptoir_bench_instructions", help="PostgreSQL database name")
    parser.add_argument("--lean", action="store_true", help="rate limits, request log and info lines off")
    parser.add_argument("--keep", type=Path, help="keep the callgrind outputs and logs in this directory")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is required: apt-get install -y valgrind")
    kinds = args.kind or list(COUNTED)

    work = args.keep or Path(tempfile.mkdtemp(prefix="comptoir-callgrind-"))
    work.mkdir(parents=True, exist_ok=True)
    figures: dict[str, float] = {}
    with prepared(args.database, kinds, work, lean_settings=args.lean) as setup:
        base = counted(setup, "none", 0) if set(kinds) & set(REQUEST_KINDS) else None
        for kind in kinds:
            own_base = counted(setup, "delivery", 0) if kind == "delivery" else base
            assert own_base is not None
            run = counted(setup, kind, args.requests)
            figures[kind] = report(kind, own_base, run, args.requests, args.top)
    settings = "lean: rate limits, request log, info lines off" if args.lean else "production defaults"
    print(f"\ninstructions per request (callgrind, {args.requests} requests after {WARM_UP} of warm-up, {settings})")
    for kind, per_request in figures.items():
        print(f"{LABELS[kind]:<30}{per_request:>14,.0f}")
    if args.keep is None:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
