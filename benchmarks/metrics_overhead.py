"""What the Prometheus metrics cost `GET /v1/location` (docs/operations.md "Metrics").

Two `comptoir serve` processes on one database, one with metrics (COMPTOIR_METRICS_PATH
default) and one without (`off`); wrk runs alternate between them, the medians of the runs
and their ratio are printed. Target: the metrics cost less than 5% of the throughput. The
tokens and the request are those of benchmarks/location_get.py.

Needs wrk. Run by hand, not in CI:

    uv run python benchmarks/metrics_overhead.py
    uv run python benchmarks/metrics_overhead.py --path /v1/health --runs 7 --duration 6
    uv run python benchmarks/metrics_overhead.py --database postgresql://postgres@127.0.0.1:5432/bench
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
from pathlib import Path

import httpx

from _common import free_port, run_wrk, wait_until_up
from location_get import COMPTOIR, SECRET_KEY, WRK_SCRIPT, make_tokens


def start(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [COMPTOIR, "serve", "--port", str(port), "--no-worker"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
    )
    base = f"http://127.0.0.1:{port}"
    wait_until_up(base)
    return process, base


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", help="COMPTOIR_DATABASE_URL (default: a fresh SQLite file)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--tokens", type=int, default=1000)
    parser.add_argument("--path", choices=["/v1/location", "/v1/health"], default="/v1/location")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is required: apt-get install -y wrk")

    workdir = Path(tempfile.mkdtemp(prefix="comptoir-bench-"))
    env = {
        "COMPTOIR_DATABASE_URL": args.database or f"sqlite:///{workdir / 'comptoir.db'}",
        "COMPTOIR_SECRET_KEY": SECRET_KEY,
        "COMPTOIR_RATE_LIMITS": "on",
    }
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPTOIR_", "PROMETHEUS_"))} | env
    subprocess.run([COMPTOIR, "demo"], env=full_env, check=True, capture_output=True)
    tokens = asyncio.run(make_tokens(env, args.tokens))
    tokens_file = workdir / "tokens.txt"
    tokens_file.write_text("\n".join(tokens) + "\n")
    script = workdir / "requests.lua"
    if args.path == "/v1/health":
        script.write_text('request = function() return wrk.format("GET", "/v1/health") end\n')
    else:
        script.write_text(f'args_path = "{args.path}"\n' + WRK_SCRIPT)
    target = 0.02 if args.path == "/v1/health" else 0.05

    servers = {
        "on": start(full_env, workdir / "on.log"),
        "off": start(full_env | {"COMPTOIR_METRICS_PATH": "off"}, workdir / "off.log"),
    }
    try:
        assert httpx.get(f"{servers['on'][1]}/metrics").status_code == 200
        assert httpx.get(f"{servers['off'][1]}/metrics").status_code == 404
        for _, base in servers.values():  # warm-up
            run_wrk(base, script, [str(tokens_file)], 3, args.connections, threads=1)
        results: dict[str, list[dict[str, float]]] = {"on": [], "off": []}
        for run in range(args.runs):
            for name in ("on", "off") if run % 2 == 0 else ("off", "on"):
                base = servers[name][1]
                results[name].append(
                    run_wrk(base, script, [str(tokens_file)], args.duration, args.connections, threads=1)
                )
    finally:
        for process, _ in servers.values():
            process.send_signal(signal.SIGINT)
            process.wait(timeout=15)

    print(
        f"GET {args.path}, metrics on vs off: {args.runs} alternating runs of {args.duration}s,"
        f" wrk -t1 -c{args.connections}"
    )
    for name in ("on", "off"):
        rps = [r["rps"] for r in results[name]]
        p99 = statistics.median(r["p99"] for r in results[name])
        print(
            f"metrics {name:<4} req/s {' '.join(f'{x:.0f}' for x in rps):<40}"
            f" median {statistics.median(rps):.0f}  p99 {p99:.2f} ms"
        )
    ratio = statistics.median(r["rps"] for r in results["on"]) / statistics.median(r["rps"] for r in results["off"])
    print(f"on/off ratio of medians: {ratio:.1%} (cost {1 - ratio:.1%}; target < {target:.0%})")
    print(f"(logs and tokens in {workdir})")


if __name__ == "__main__":
    main()
