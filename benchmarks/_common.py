"""What the benchmarks share: a free port, wrk runs and their figures, percentiles, a new
PostgreSQL database."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx

_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(base: str, seconds: float = 30, poll: float = 0.1) -> None:
    """Wait for a starting `comptoir serve` at `base` to answer /v1/health, asking every
    `poll` seconds."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/v1/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(poll)
    raise SystemExit(f"no server answered at {base} within {seconds:.0f} s")


def stop(process: subprocess.Popen[Any], seconds: float = 30) -> None:
    """SIGTERM a started `comptoir` process and wait for it (killed when it outlives
    `seconds`); its stdout closed."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()


def cpu_seconds(pid: int) -> float:
    """User and system CPU a process has used so far (Linux: /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    assert match, text
    return float(match.group(1)) * _UNITS[match.group(2)]


def run_wrk(
    url: str, script: Path, args: list[str], duration: int, connections: int, threads: int = 2
) -> dict[str, float]:
    """requests/s, p50 and p99 (ms) of one wrk run; exits when wrk saw a failed response."""
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency", "-s", str(script), url, "--", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    if re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out) or re.search(r"Socket errors: (.*)", out):
        raise SystemExit(f"wrk saw failures with {script.name}, figures invalid:\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = _ms(re.search(r"\s50%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"\s99%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    return {"rps": rps, "p50": p50, "p99": p99}


async def recreate_database(admin_url: str, name: str) -> None:
    """Drop the benchmark's database `name` if an earlier run left it, and create it empty."""
    admin = await asyncpg.connect(admin_url)
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.execute(f"CREATE DATABASE {name}")
    finally:
        await admin.close()


KEY = "benchmark-secret-key-at-least-32-bytes-long"


def in_process_settings(database: str) -> dict[str, str]:
    """The environment of the benchmarks that drive the app inside their own process: the
    PostgreSQL database `database`, rate limits and the request log off."""
    return {
        "COMPTOIR_DATABASE_URL": f"postgresql://postgres@127.0.0.1:5432/{database}",
        "COMPTOIR_SECRET_KEY": KEY,
        "COMPTOIR_LOG_LEVEL": "warning",
        "COMPTOIR_RATE_LIMITS": "off",
        "COMPTOIR_REQUEST_LOGS": "off",
    }


def fresh_demo(comptoir: str, admin_url: str, database: str, env: dict[str, str]) -> dict[str, Any]:
    """A new database `database` holding the demo data (`comptoir demo`, run with `env`), and
    the demo's output."""
    asyncio.run(recreate_database(admin_url, database))
    done = subprocess.run([comptoir, "demo"], env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]
