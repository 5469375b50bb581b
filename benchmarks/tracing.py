"""What tracing costs `GET /v1/location` (docs/operations.md "Traces").

Two `comptoir serve` processes on one database: one with tracing off (no `OTEL_*` variable),
one with `OTEL_TRACES_EXPORTER=otlp` exporting every span over OTLP/HTTP to a sink on
loopback that answers 200 at once (the SDK's batching, encoding and sending included; no
collector's own cost). wrk runs alternate between the two, as in benchmarks/location_get.py
(same tokens, same script); the medians and their ratio are printed.

`--in-process` measures CPU instead, in one process and without wrk: the same requests
through two apps, one built with tracing off and one with a tracer provider whose exporter
drops every batch (the cost of making the spans, not of sending them), alternately; the
medians of the CPU microseconds per request are printed.

Needs wrk (but for `--in-process`). Run by hand, not in CI:

    uv run python benchmarks/tracing.py                      # SQLite
    uv run python benchmarks/tracing.py --in-process
    uv run python benchmarks/tracing.py --database postgresql://postgres@127.0.0.1:5432/bench
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
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from _common import free_port, run_wrk, wait_until_up
from location_get import COMPTOIR, SECRET_KEY, WRK_SCRIPT, make_tokens


@contextmanager
def otlp_sink() -> Iterator[tuple[str, list[int]]]:
    """An OTLP/HTTP endpoint that reads each export and answers 200; its URL and the sizes read."""
    sizes: list[int] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            sizes.append(len(self.rfile.read(int(self.headers.get("content-length") or 0))))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", sizes
    finally:
        server.shutdown()


def in_process(tokens: list[str], runs: int, requests: int) -> None:
    import logging
    import time

    import structlog
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    from comptoir.app import create_app
    from comptoir.config import Settings
    from comptoir.kit import tracing

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))

    class Dropped(SpanExporter):
        def export(self, spans: object) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    async def cpu_per_request(app: object) -> float:
        async with app.router.lifespan_context(app):  # type: ignore[attr-defined]
            transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
            async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
                for i in range(200):  # warm-up
                    await http.get("/v1/location", headers={"X-Access-Token": tokens[i % len(tokens)]})
                started = time.process_time()
                for i in range(requests):
                    answer = await http.get("/v1/location", headers={"X-Access-Token": tokens[i % len(tokens)]})
                    assert answer.status_code == 200, answer.text
                return (time.process_time() - started) / requests * 1e6

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Dropped()))
    apps = {"off": create_app(Settings(), background=False)}
    tracing.install(provider)
    apps["on"] = create_app(Settings(), background=False)
    tracing.install(None)
    results: dict[str, list[float]] = {"off": [], "on": []}
    for run in range(runs):
        for name in ("off", "on") if run % 2 == 0 else ("on", "off"):
            results[name].append(asyncio.run(cpu_per_request(apps[name])))
    print(f"GET /v1/location in one process, {runs} alternating runs of {requests} requests, CPU us per request")
    for name in ("off", "on"):
        runs_text = " ".join(f"{x:.0f}" for x in results[name])
        print(f"{name:<5}{runs_text:<40}median {statistics.median(results[name]):.0f}")
    off, on = statistics.median(results["off"]), statistics.median(results["on"])
    print(f"tracing on costs {on - off:.0f} us per request ({on / off - 1:+.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", help="COMPTOIR_DATABASE_URL (default: a fresh SQLite file)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=32, help="concurrent wrk connections")
    parser.add_argument("--tokens", type=int, default=1000, help="connections to rotate over")
    parser.add_argument("--in-process", action="store_true", help="CPU per request in one process (no wrk)")
    parser.add_argument("--requests", type=int, default=1500, help="requests per run (--in-process)")
    args = parser.parse_args()
    if shutil.which("wrk") is None and not args.in_process:
        raise SystemExit("wrk is required: apt-get install -y wrk")

    workdir = Path(tempfile.mkdtemp(prefix="comptoir-bench-"))
    env = {
        "COMPTOIR_DATABASE_URL": args.database or f"sqlite:///{workdir / 'comptoir.db'}",
        "COMPTOIR_SECRET_KEY": SECRET_KEY,
        "COMPTOIR_RATE_LIMITS": "off",  # two processes, one token list: no limit in the way
    }
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPTOIR_", "OTEL_"))} | env
    subprocess.run([COMPTOIR, "demo"], env=base_env, check=True, capture_output=True)
    tokens = asyncio.run(make_tokens(env, args.tokens))
    tokens_file = workdir / "tokens.txt"
    tokens_file.write_text("\n".join(tokens) + "\n")
    if args.in_process:
        in_process(tokens, args.runs, args.requests)
        return
    script = workdir / "location.lua"
    script.write_text('args_path = "/v1/location"\n' + WRK_SCRIPT)

    with otlp_sink() as (sink, sizes):
        envs = {
            "off": base_env,
            "on": base_env | {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": sink},
        }
        servers: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
        logs = []
        try:
            for name, server_env in envs.items():
                port = free_port()
                log = (workdir / f"server-{name}.log").open("w")
                logs.append(log)
                process = subprocess.Popen(
                    [COMPTOIR, "serve", "--no-worker", "--port", str(port)],
                    env=server_env,
                    stdout=subprocess.DEVNULL,
                    stderr=log,
                )
                servers[name] = (process, f"http://127.0.0.1:{port}")
                wait_until_up(servers[name][1])
                check = httpx.get(f"{servers[name][1]}/v1/location", headers={"X-Access-Token": tokens[0]})
                assert check.status_code == 200, check.text
            for _process, base in servers.values():  # warm-up
                run_wrk(base, script, [str(tokens_file)], 3, args.connections, threads=1)
            results: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
            for run in range(args.runs):
                for name in ("off", "on") if run % 2 == 0 else ("on", "off"):
                    base = servers[name][1]
                    results[name].append(
                        run_wrk(base, script, [str(tokens_file)], args.duration, args.connections, threads=1)
                    )
        finally:
            for process, _base in servers.values():
                process.send_signal(signal.SIGINT)
                process.wait(timeout=15)
            for log in logs:
                log.close()

    database = "PostgreSQL" if env["COMPTOIR_DATABASE_URL"].startswith("postgres") else "SQLite"
    print(f"GET /v1/location, tracing off vs on (OTLP/HTTP to a loopback sink), 1 serve process each, {database}")
    print(f"wrk -t1 -c{args.connections}, {args.runs} alternating runs of {args.duration}s, {len(tokens)} tokens")
    print(f"{'tracing':<10}{'req/s (runs)':<48}{'median':>10}{'p50 ms':>10}{'p99 ms':>10}")
    for name in ("off", "on"):
        runs = results[name]
        rps = [r["rps"] for r in runs]
        print(
            f"{name:<10}{' '.join(f'{x:.0f}' for x in rps):<48}{statistics.median(rps):>10.0f}"
            f"{statistics.median(r['p50'] for r in runs):>10.2f}{statistics.median(r['p99'] for r in runs):>10.2f}"
        )
    ratio = statistics.median(r["rps"] for r in results["on"]) / statistics.median(r["rps"] for r in results["off"])
    print(f"on/off ratio of medians: {ratio:.1%}; {len(sizes)} exports received ({sum(sizes)} bytes)")
    print(f"(server logs and tokens in {workdir})")


if __name__ == "__main__":
    main()
