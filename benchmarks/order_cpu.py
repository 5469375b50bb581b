"""The CPU a request costs inside one process, and (`--profile`) where it goes: Python
functions and stages, sampled. docs/performance.md holds the figures and how to read them.

Kinds (benchmarks/_drive.py): `post` (an order creation, the realistic order of
benchmarks/orders.py), `get` (an order GET), `list` (a page of 100 orders), `location`
(`GET /v1/location`) and `delivery`
(one callback delivery by `comptoir worker` to a local receiver), and `idle` (the CPU of one
second of an idle process: the timers the others run without). The requests go through the
app's ASGI interface (no wrk, no network between client and app, the httpx client's share
included), on PostgreSQL, with the production defaults (rate limits, request log and info
lines on; `--lean` turns them off), so the figure moves far less with the machine's load than
the end-to-end benchmark (benchmarks/orders.py). Compare two checkouts in the same session:
run it in each, one after the other.

Without `--profile`: `--runs` rounds; in each, one process per kind does its warm-up, then
`--requests` (`--idle-seconds` for `idle`); the process CPU per request (microseconds) of each
round, and their median.

With `--profile`: one process per kind, sampled from the end of its warm-up to its last
request; prints the samples' shares by stage (benchmarks/_stages.py says how a sample is
attributed), the microseconds they stand for (the share of the process CPU per request of the
same run), and the `--top` costliest Python functions by cumulative and by own samples. Two
samplers (benchmarks/_drive.py): `cpu` (the default), in the process, samples its CPU time,
so a loaded machine does not bend the shares; `py-spy` (`--native --gil`) samples wall time
while the GIL is held, with the C frames of the extensions, but on a loaded machine it also
counts the time the process waits for a CPU. py-spy is not a dependency of the project: run
that one with `uv run --with py-spy`.

    uv run python benchmarks/order_cpu.py
    uv run python benchmarks/order_cpu.py --requests 1000 --runs 5 --kind post --kind get
    uv run python benchmarks/order_cpu.py --profile --requests 5000 --keep /tmp/cpu-profile
    uv run --with py-spy python benchmarks/order_cpu.py --profile --sampler py-spy --requests 2000

The PostgreSQL databases `comptoir_bench_order_cpu` and `comptoir_bench_order_cpu_deliveries`
(`--database`) are (re)created by each run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from _drive import KINDS, LABELS, LOG_NAME, Setup, prepared
from _stages import Profile, harness

WARM_UP = 200


def measured(
    setup: Setup, kind: str, requests: int, spy: Path | None = None, sampler: str = "", rate: int = 0
) -> float:
    """One child run: the process CPU (microseconds) per request of `kind` after the warm-up,
    sampled by `sampler` into `spy` when given."""
    if kind == "delivery":
        setup.queue(WARM_UP + requests)
    result = setup.work / f"{kind}.json"
    extra = ["--result", str(result)] + (["--spy", str(spy), "--sampler", sampler, "--rate", str(rate)] if spy else [])
    command = setup.child(kind, requests, WARM_UP, *extra)
    with (setup.work / LOG_NAME).open("ab") as child_log:
        done = subprocess.run(command, env=setup.child_env(kind), stdout=child_log, stderr=child_log)
    if done.returncode != 0:
        tail = (setup.work / LOG_NAME).read_text()[-3000:]
        raise SystemExit(f"the {kind} run failed (logs in {setup.work}):\n{tail}")
    return float(json.loads(result.read_text())["cpu"]) / requests * 1e6


def show_profile(kind: str, profile: Profile, cpu_us: float, requests: int, top: int) -> None:
    total = profile.samples
    print(f"\n{LABELS[kind]}: {cpu_us:.0f} us CPU per request; {total} samples ({total / requests:.2f} a request),"
          f" {profile.waiting} more set apart waiting in a system call")  # fmt: skip
    print(f"  {'stage':<60}{'share':>8}{'us':>8}")
    for name, count in profile.stages.most_common():
        print(f"  {name:<60}{100 * count / total:>7.1f}%{cpu_us * count / total:>8.0f}")
    # left out: the entry chain (over 90% of the samples), the harness's client, and for the
    # cumulative list the wrappers (middleware calling the next one, within 1% of its cost)
    cumulative = profile.cumulative()
    left_out = {frame for frame, count in cumulative.items() if count > 0.9 * total}
    wrappers = profile.wrappers(0.01 * total)
    for title, counts in (("cumulative", cumulative), ("own", profile.own())):
        print(f"  the {top} costliest Python functions by {title} samples (entry chain, harness and wrappers left out)")
        skip = left_out | wrappers if title == "cumulative" else left_out
        rows = [(frame, count) for frame, count in counts.most_common() if frame not in skip and not harness(frame)]
        for frame, count in rows[:top]:
            print(f"  {100 * count / total:>6.1f}% {cpu_us * count / total:>6.0f} us  {frame}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", action="append", choices=KINDS, help="repeat for several (default: all)")
    parser.add_argument("--requests", type=int, default=500, help="measured requests of each kind per process")
    parser.add_argument("--idle-seconds", type=int, default=20, help="how long `idle` measures")
    parser.add_argument("--runs", type=int, default=3, help="rounds (without --profile)")
    parser.add_argument("--profile", action="store_true", help="sample the measured requests")
    parser.add_argument("--sampler", choices=["cpu", "py-spy"], default="cpu", help="see above")
    parser.add_argument("--rate", type=int, help="samples per second (default: 1000 of CPU, 200 of wall time)")
    parser.add_argument("--top", type=int, default=15, help="functions listed per kind and order")
    parser.add_argument("--database", default="comptoir_bench_order_cpu", help="PostgreSQL database name")
    parser.add_argument("--lean", action="store_true", help="rate limits, request log and info lines off")
    parser.add_argument("--keep", type=Path, help="keep the samples and the logs in this directory")
    parser.add_argument("--reread", type=Path, help="only print the profile kept in this directory by --keep")
    args = parser.parse_args()
    if args.profile and args.sampler == "py-spy" and shutil.which("py-spy") is None:
        raise SystemExit("py-spy is required: uv run --with py-spy python benchmarks/order_cpu.py --profile ...")
    rate = args.rate or (1000 if args.sampler == "cpu" else 200)
    kinds = args.kind or list(KINDS)

    if args.reread:  # the same --requests, --idle-seconds and --sampler as the run that kept it
        for kind in kinds:
            count = args.idle_seconds if kind == "idle" else args.requests
            cpu_us = json.loads((args.reread / f"{kind}.json").read_text())["cpu"] / count * 1e6
            show_profile(kind, Profile.read(args.reread / f"{args.sampler}.{kind}.txt", kind), cpu_us, count, args.top)
        return
    work = args.keep or Path(tempfile.mkdtemp(prefix="comptoir-cpu-"))
    work.mkdir(parents=True, exist_ok=True)
    settings = "lean: rate limits, request log, info lines off" if args.lean else "production defaults"
    with prepared(args.database, kinds, work, lean_settings=args.lean) as setup:
        if args.profile:
            for kind in kinds:
                spy = work / f"{args.sampler}.{kind}.txt"
                count = args.idle_seconds if kind == "idle" else args.requests
                cpu_us = measured(setup, kind, count, spy, args.sampler, rate)
                show_profile(kind, Profile.read(spy, kind), cpu_us, count, args.top)
            print(f"\n({args.requests} requests of each kind after {WARM_UP} of warm-up, {settings})")
        else:
            figures: dict[str, list[float]] = {kind: [] for kind in kinds}
            for _ in range(args.runs):
                for kind in kinds:
                    figures[kind].append(measured(setup, kind, args.idle_seconds if kind == "idle" else args.requests))
            print(f"\nCPU per request in one process (client included), {args.runs} rounds of {args.requests}")
            print(f"({settings})")
            print(f"{'':<30}{'per round (us)':<30}{'median':>8}")
            for kind, values in figures.items():
                print(f"{LABELS[kind]:<30}{' '.join(f'{v:.0f}' for v in values):<30}{statistics.median(values):>8.0f}")
    if args.keep is None:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
