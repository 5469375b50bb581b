"""Past one host: `comptoir serve` and PostgreSQL in two network namespaces, with a latency
between them (docs/scaling.md "Two hosts, measured").

Run as root (it makes network namespaces), by hand, not in CI; needs wrk, gcc and the
PostgreSQL 15 server binaries:

    uv run python benchmarks/two_hosts.py --pg-setting synchronous_commit=off   # the full run, about 18 minutes
    uv run python benchmarks/two_hosts.py --rounds 1 --duration 5 --only loopback,relay-2ms

The figures of docs/scaling.md come from the first command: commits that do not wait for the
disk's flush, whose time on a shared machine
swings more than anything measured here.

What it builds, removed again at the end (even on failure or Ctrl-C):
- namespaces `cmpa<pid>` (the database host) and `cmpb<pid>` (the application host) joined
  by a veth pair, 10.77.0.1/24 and 10.77.0.2/24;
- a private PostgreSQL cluster (initdb into a temporary directory, run as the postgres user)
  in namespace A, listening on 127.0.0.1 and 10.77.0.1, with pg_stat_statements loaded;
- `benchmarks/delay_relay.c`, compiled, in namespace A on 10.77.0.1:6432 in front of the
  cluster: each chunk it reads waits the delay before it goes on, in each direction (a round
  trip gains twice the delay).

Configurations: `loopback` (serve and wrk in namespace A, PostgreSQL at 127.0.0.1), `veth`
(serve and wrk in namespace B, PostgreSQL straight across the veth pair), `relay-0ms`,
`relay-0.5ms`, `relay-2ms` (through the relay), the last also with smaller pools
(`relay-2ms-poolN`: each of the process's two pools, the engine's and the statement pool,
holds N connections: COMPTOIR_DATABASE_POOL_SIZE and COMPTOIR_DATABASE_DIRECT_POOL_SIZE)
and some with 2 serve processes.
Each round runs every configuration in turn (a new `serve` each time), its order rotating
from round to round; each configuration runs order creation (`POST /v1/location/orders`, the
2 KB order of benchmarks/orders.py) and `GET /v1/location`, with wrk from the application's
namespace. Per run it reads the CPU time of the PostgreSQL processes, of the serve processes
and of the relay from /proc, and the statements PostgreSQL ran (pg_stat_statements).
Then each request runs once more one at a time (wrk -c1): its p50 is what a request waits,
without queueing (the round trips it waits one after the other). Medians over the rounds are
printed, with ratios to `loopback` taken within each round, and the bytes per row of the
tables that grow with traffic. Every wrk output is kept in the work directory printed at the
end.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from orders import POST_SCRIPT, realistic_order

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable
COMPTOIR = str(Path(sys.executable).parent / "comptoir")
PG_BIN = Path("/usr/lib/postgresql/15/bin")
SECRET_KEY = "benchmark-secret-key-at-least-32-bytes-long"
DB_HOST_ADDRESS = "10.77.0.1"
APP_HOST_ADDRESS = "10.77.0.2"
RELAY_PORT = 6432
DATABASE = "comptoir_two_hosts"
TICKS = os.sysconf("SC_CLK_TCK")
GET_SCRIPT = """
local token
init = function(args) token = args[1] end
request = function() return wrk.format("GET", "/v1/location", {["X-Access-Token"] = token}) end
"""


@dataclass
class Config:
    name: str
    delay_us: int | None  # None: no relay
    in_db_namespace: bool = False  # serve (and wrk) beside PostgreSQL
    pool: int | None = None  # None: the code's own pool sizes
    workers: int = 1


CONFIGS = [
    Config("loopback", None, in_db_namespace=True),
    Config("loopback-2proc", None, in_db_namespace=True, workers=2),
    Config("veth", None),
    Config("relay-0ms", 0),
    Config("relay-0.5ms", 500),
    Config("relay-2ms", 2000),
    Config("relay-2ms-pool2", 2000, pool=2),
    Config("relay-2ms-pool4", 2000, pool=4),
    Config("relay-2ms-2proc", 2000, workers=2),
]


@dataclass
class Result:
    rps: float
    p50: float
    p99: float
    requests: int
    pg_cpu: float  # seconds
    serve_cpu: float
    relay_cpu: float
    statements: int
    raw: str = field(repr=False, default="")


def sh(*command: str, check: bool = True, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, check=check, text=True, capture_output=True, **kwargs)  # type: ignore[call-overload]


def in_ns(namespace: str, *command: str) -> list[str]:
    return ["ip", "netns", "exec", namespace, *command]


# --- CPU time from /proc -------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # fields from the state on (field 3)


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            tree.setdefault(int(fields[1]), []).append(int(entry.name))
    return tree


def tree_cpu(root: int) -> float:
    """CPU seconds of a process and its descendants, including those that ended (reaped: their
    time is in their parent's cutime and cstime)."""
    tree = _children()
    total = 0
    stack = [root]
    while stack:
        pid = stack.pop()
        fields = _stat(pid)
        if fields is None:
            continue
        total += sum(int(x) for x in fields[11:13])  # utime, stime
        if pid == root:
            total += sum(int(x) for x in fields[13:15])  # cutime, cstime of reaped children
        stack.extend(tree.get(pid, []))
    return total / TICKS


# --- the two hosts -------------------------------------------------------------------------


class Hosts:
    """Namespaces, veth pair, private PostgreSQL cluster, relay binary; `close()` undoes all."""

    def __init__(self, workdir: Path, settings: list[str]) -> None:
        self.workdir = workdir
        self.settings = settings  # more `name=value` settings of the cluster
        suffix = str(os.getpid())
        self.db_ns = f"cmpa{suffix}"
        self.app_ns = f"cmpb{suffix}"
        self.veth = (f"cva{suffix}"[:15], f"cvb{suffix}"[:15])
        self.cluster = workdir / "pg"
        self.pg_started = False
        self.namespaces: list[str] = []
        self.relay_binary = workdir / "delay_relay"

    def open(self) -> None:
        for namespace in (self.db_ns, self.app_ns):
            sh("ip", "netns", "add", namespace)
            self.namespaces.append(namespace)
            sh("ip", "-n", namespace, "link", "set", "lo", "up")
        a, b = self.veth
        sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
        sh("ip", "link", "set", a, "netns", self.db_ns)
        sh("ip", "link", "set", b, "netns", self.app_ns)
        sh("ip", "-n", self.db_ns, "addr", "add", f"{DB_HOST_ADDRESS}/24", "dev", a)
        sh("ip", "-n", self.app_ns, "addr", "add", f"{APP_HOST_ADDRESS}/24", "dev", b)
        sh("ip", "-n", self.db_ns, "link", "set", a, "up")
        sh("ip", "-n", self.app_ns, "link", "set", b, "up")
        sh("gcc", "-O2", "-o", str(self.relay_binary), str(HERE / "delay_relay.c"))

        self.cluster.mkdir()
        shutil.chown(self.workdir, "postgres")
        shutil.chown(self.cluster, "postgres")
        data = self.cluster / "data"
        sh("runuser", "-u", "postgres", "--", str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust",
           "-U", "postgres", "--no-sync")  # fmt: skip
        with (data / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {DB_HOST_ADDRESS.rsplit('.', 1)[0]}.0/24 trust\n")
        options = (
            f"-c listen_addresses=127.0.0.1,{DB_HOST_ADDRESS} -c port=5432 -c unix_socket_directories={self.cluster}"
            " -c max_connections=300 -c shared_buffers=256MB -c shared_preload_libraries=pg_stat_statements"
        ) + "".join(f" -c {setting}" for setting in self.settings)
        self.pg_started = True
        sh(*in_ns(self.db_ns, "runuser", "-u", "postgres", "--", str(PG_BIN / "pg_ctl"), "-D", str(data),
                  "-l", str(self.cluster / "postgresql.log"), "-w", "-o", options, "start"))  # fmt: skip
        self.psql("postgres", f"CREATE DATABASE {DATABASE}")
        self.psql(DATABASE, "CREATE EXTENSION pg_stat_statements")

    def postmaster(self) -> int:
        return int((self.cluster / "data" / "postmaster.pid").read_text().split()[0])

    def psql(self, database: str, sql: str) -> str:
        command = in_ns(self.db_ns, "psql", "-h", "127.0.0.1", "-U", "postgres", "-d", database, "-Atqc", sql)
        return sh(*command).stdout.strip()

    def close(self) -> None:
        if self.pg_started:
            data = self.cluster / "data"
            sh(*in_ns(self.db_ns, "runuser", "-u", "postgres", "--", str(PG_BIN / "pg_ctl"), "-D", str(data),
                      "-m", "immediate", "-w", "stop"), check=False)  # fmt: skip
        for namespace in self.namespaces:  # the veth pair goes with them
            sh("ip", "netns", "del", namespace, check=False)
        shutil.rmtree(self.cluster, ignore_errors=True)


def server_env(url: str, pool: int | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | {
        "COMPTOIR_DATABASE_URL": url,
        "COMPTOIR_SECRET_KEY": SECRET_KEY,
        "COMPTOIR_RATE_LIMITS": "off",
        "COMPTOIR_LOG_LEVEL": "warning",
    }
    if pool is not None:
        env["COMPTOIR_DATABASE_POOL_SIZE"] = str(pool)
        env["COMPTOIR_DATABASE_MAX_OVERFLOW"] = "0"
        env["COMPTOIR_DATABASE_DIRECT_POOL_SIZE"] = str(pool)
    return env


# --- one configuration ---------------------------------------------------------------------


def wrk(namespace: str, port: int, script: Path, args: list[str], duration: int, connections: int) -> tuple[dict, str]:
    command = in_ns(namespace, "wrk", "-t1", f"-c{connections}", f"-d{duration}s", "--latency", "-s", str(script),
                    f"http://127.0.0.1:{port}", "--", *args)  # fmt: skip
    out = sh(*command).stdout
    if re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out) or re.search(r"Socket errors: (.*)", out):
        raise SystemExit(f"wrk saw failures with {script.name}, figures invalid:\n{out}")

    def ms(text: str) -> float:
        match = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
        assert match, text
        return float(match.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[match.group(2)]

    figures = {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),  # type: ignore[union-attr]
        "p50": ms(re.search(r"\s50%\s+(\S+)", out).group(1)),  # type: ignore[union-attr]
        "p99": ms(re.search(r"\s99%\s+(\S+)", out).group(1)),  # type: ignore[union-attr]
        "requests": int(re.search(r"(\d+) requests in", out).group(1)),  # type: ignore[union-attr]
    }
    return figures, out


def wait_up(namespace: str, port: int, server: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"serve exited with {server.returncode}")
        done = subprocess.run(
            in_ns(namespace, "curl", "-sf", "-o", "/dev/null", f"http://127.0.0.1:{port}/v1/health"), check=False
        )
        if done.returncode == 0:
            return
        time.sleep(0.2)
    raise SystemExit(f"serve did not answer on port {port} within {seconds:.0f} s")


def run_config(
    hosts: Hosts, config: Config, args: argparse.Namespace, scripts: dict[str, tuple[Path, list[str]]], log: Path
) -> dict[str, Result]:
    namespace = hosts.db_ns if config.in_db_namespace else hosts.app_ns
    relay = None
    if config.delay_us is not None:
        relay_command = [str(hosts.relay_binary), DB_HOST_ADDRESS, str(RELAY_PORT), "127.0.0.1", "5432"]
        relay = subprocess.Popen(in_ns(hosts.db_ns, *relay_command, str(config.delay_us)), stderr=subprocess.DEVNULL)
        url = f"postgresql://postgres@{DB_HOST_ADDRESS}:{RELAY_PORT}/{DATABASE}"
        time.sleep(0.2)
    elif config.in_db_namespace:
        url = f"postgresql://postgres@127.0.0.1:5432/{DATABASE}"
    else:
        url = f"postgresql://postgres@{DB_HOST_ADDRESS}:5432/{DATABASE}"
    port = 8000
    with log.open("a") as errors:
        comptoir = str(Path(PYTHON).with_name("comptoir"))
        serve = [comptoir, "serve", "--port", str(port), "--workers", str(config.workers)]
        server = subprocess.Popen(
            in_ns(namespace, *serve),
            env=server_env(url, config.pool),
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
    results: dict[str, Result] = {}
    try:
        wait_up(namespace, port, server)
        for script, extra in scripts.values():  # warm-up: every process's pools and caches
            wrk(namespace, port, script, extra, 2, args.connections)
        names = list(scripts)
        for name in names if args.flip % 2 == 0 else names[::-1]:
            script, extra = scripts[name]
            hosts.psql(DATABASE, "SELECT pg_stat_statements_reset()")
            postmaster = hosts.postmaster()
            pg0, serve0 = tree_cpu(postmaster), tree_cpu(server.pid)
            relay0 = tree_cpu(relay.pid) if relay else 0.0
            figures, raw = wrk(namespace, port, script, extra, args.duration, args.connections)
            pg1, serve1 = tree_cpu(postmaster), tree_cpu(server.pid)
            relay1 = tree_cpu(relay.pid) if relay else 0.0
            statements = int(hosts.psql(DATABASE, "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements") or 0)
            results[name] = Result(
                rps=figures["rps"], p50=figures["p50"], p99=figures["p99"], requests=figures["requests"],
                pg_cpu=pg1 - pg0, serve_cpu=serve1 - serve0, relay_cpu=relay1 - relay0, statements=statements, raw=raw,
            )  # fmt: skip
        for name in names:  # one request at a time: what a request waits, without queueing
            script, extra = scripts[name]
            figures, raw = wrk(namespace, port, script, extra, args.duration, 1)
            results[f"{name}-c1"] = Result(figures["rps"], figures["p50"], figures["p99"], figures["requests"],
                                           0.0, 0.0, 0.0, 0, raw)  # fmt: skip
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if relay is not None:
            relay.terminate()
            relay.wait()
    return results


def prepare(hosts: Hosts) -> tuple[dict, Path]:
    env = server_env(f"postgresql://postgres@127.0.0.1:5432/{DATABASE}", None)
    demo = json.loads(sh(*in_ns(hosts.db_ns, COMPTOIR, "demo"), env=env).stdout)
    order_file = hosts.workdir / "order.json"
    order_file.write_text(json.dumps(realistic_order()))
    return demo, order_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=6, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--only", help="comma-separated configuration names (loopback is always run)")
    parser.add_argument(
        "--pg-setting",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting of the private cluster, e.g. synchronous_commit=off (repeatable)",
    )
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("run as root: it makes network namespaces")
    for tool in ("wrk", "gcc", "curl", "psql"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is required")
    configs = CONFIGS
    if args.only:
        wanted = {"loopback", *args.only.split(",")}
        configs = [c for c in CONFIGS if c.name in wanted]

    workdir = Path(tempfile.mkdtemp(prefix="comptoir-two-hosts-"))
    hosts = Hosts(workdir, args.pg_setting)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    rounds: list[dict[str, dict[str, Result]]] = []
    try:
        hosts.open()
        demo, order_file = prepare(hosts)
        token = demo["tokens"]["location"]
        scripts: dict[str, tuple[Path, list[str]]] = {}
        for name, text, extra in (
            ("create", POST_SCRIPT, [str(order_file), token]),
            ("get", GET_SCRIPT, [token]),
        ):
            scripts[name] = (workdir / f"{name}.lua", extra)
            scripts[name][0].write_text(text)
        raw = (workdir / "wrk-output.txt").open("w")
        for round_number in range(args.rounds):
            done: dict[str, dict[str, Result]] = {}
            shift = round_number % len(configs)
            for position, config in enumerate(configs[shift:] + configs[:shift]):
                args.flip = round_number + position
                print(f"round {round_number + 1}: {config.name}", flush=True)
                done[config.name] = run_config(hosts, config, args, scripts, workdir / "serve.log")
                for name, result in done[config.name].items():
                    raw.write(f"=== round {round_number + 1} {config.name} {name}\n{result.raw}\n")
                    raw.write(
                        f"pg_cpu={result.pg_cpu:.2f}s serve_cpu={result.serve_cpu:.2f}s"
                        f" relay_cpu={result.relay_cpu:.2f}s statements={result.statements}\n"
                    )
                raw.flush()
            rounds.append(done)
        raw.close()
        report(configs, rounds, args)
        sizes(hosts)
    finally:
        hosts.close()
    print(f"(wrk outputs and the serve log in {workdir})")


GROWING = ("orders", "changes", "events", "request_logs", "delivery_attempts", "idempotency_keys")


def sizes(hosts: Hosts) -> None:
    """What the run left in the tables that grow with traffic: rows and bytes per row (heap,
    TOAST and indexes, after VACUUM ANALYZE)."""
    hosts.psql(DATABASE, "VACUUM ANALYZE")
    print(f"\n{'table':<20}{'rows':>10}{'bytes/row':>11}")
    for table in GROWING:
        rows, size = hosts.psql(DATABASE, f"SELECT count(*), pg_total_relation_size('{table}') FROM {table}").split("|")
        print(f"{table:<20}{int(rows):>10}{int(size) / max(int(rows), 1):>11.0f}")


def report(configs: list[Config], rounds: list[dict[str, dict[str, Result]]], args: argparse.Namespace) -> None:
    def med(values: list[float]) -> float:
        return statistics.median(values)

    print(
        f"\nTwo namespaces, wrk -t1 -c{args.connections}, {len(rounds)} rounds of {args.duration}s runs;"
        " medians over the rounds; ratios to loopback within each round"
    )
    for name, label in (("create", "POST /v1/location/orders"), ("get", "GET /v1/location")):
        print(f"\n{label}")
        print(
            f"{'configuration':<18}{'procs':>6}{'pool':>6}{'req/s (rounds)':>24}{'median':>8}{'ratio':>7}"
            f"{'p50 ms':>8}{'p99 ms':>8}{'PG ms/req':>10}{'PG req/core-s':>14}{'serve ms/req':>13}"
            f"{'relay ms/req':>13}{'stmts/req':>10}{'c1 p50 ms':>10}"
        )
        for config in configs:
            runs = [r[config.name][name] for r in rounds]
            ratios = [r[config.name][name].rps / r["loopback"][name].rps for r in rounds]
            pg = med([x.pg_cpu / x.requests * 1000 for x in runs])
            print(
                f"{config.name:<18}{config.workers:>6}{config.pool or 'dflt':>6}"
                f"{' '.join(f'{x.rps:.0f}' for x in runs):>24}{med([x.rps for x in runs]):>8.0f}"
                f"{med(ratios):>7.2f}{med([x.p50 for x in runs]):>8.1f}{med([x.p99 for x in runs]):>8.1f}"
                f"{pg:>10.3f}{1000 / pg:>14.0f}{med([x.serve_cpu / x.requests * 1000 for x in runs]):>13.3f}"
                f"{med([x.relay_cpu / x.requests * 1000 for x in runs]):>13.3f}"
                f"{med([x.statements / x.requests for x in runs]):>10.2f}"
                f"{med([r[config.name][name + '-c1'].p50 for r in rounds]):>10.2f}"
            )


if __name__ == "__main__":
    main()
