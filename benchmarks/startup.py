"""A process's start (docs/performance.md "Start-up"), of this checkout and, with `--other
PATH`, of another checkout (its own `uv sync` done), alternated run by run:

- `serve`: from launching `comptoir serve` on a migrated SQLite file to its first 200 on
  `/v1/health`;
- `sandbox`: from launching `comptoir sandbox --seed examples/pizzeria.seed.json --port 0`
  to its ready line;
- `import`: `import comptoir.app` in a new interpreter, as measured inside it.

Each checkout's `src` is compiled to bytecode first: where PYTHONDONTWRITEBYTECODE is set, a
checkout never imported before would compile every module at each start (0.2 to 0.3 s).

Medians of `--runs` (8) of each. Run by hand:

    uv run python benchmarks/startup.py [--other /tmp/before] [--runs 8]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import free_port, stop, wait_until_up

ROOT = Path(__file__).parents[1]
SECRET = "startup-benchmark-" + "k" * 32
IMPORT = "import time; t = time.perf_counter(); import comptoir.app; print(time.perf_counter() - t)"


def _command(checkout: Path) -> str:
    return str(checkout / ".venv" / "bin" / "comptoir")


def serve(checkout: Path, env: dict[str, str]) -> float:
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [_command(checkout), "serve", "--port", str(port)],
        env=env,
        cwd=checkout,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_up(f"http://127.0.0.1:{port}", poll=0.01)
        return time.perf_counter() - started
    finally:
        stop(process)


def sandbox(checkout: Path, env: dict[str, str]) -> float:
    seed = ROOT / "examples" / "pizzeria.seed.json"
    started = time.perf_counter()
    process = subprocess.Popen(
        [_command(checkout), "sandbox", "--seed", str(seed), "--port", "0"],
        env=env,
        cwd=checkout,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        if not process.stdout.readline().startswith('{"url"'):
            raise SystemExit(f"{checkout}: the sandbox did not start")
        return time.perf_counter() - started
    finally:
        stop(process)


def imported(checkout: Path, env: dict[str, str]) -> float:
    python = checkout / ".venv" / "bin" / "python"
    done = subprocess.run([str(python), "-c", IMPORT], env=env, cwd=checkout, capture_output=True, text=True)
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--other", type=Path, help="another checkout, measured alternately")
    parser.add_argument("--runs", type=int, default=8)
    options = parser.parse_args()
    checkouts = [ROOT] if options.other is None else [options.other.resolve(), ROOT]
    with tempfile.TemporaryDirectory() as directory:
        env = {
            **os.environ,
            "COMPTOIR_DATABASE_URL": f"sqlite:///{Path(directory) / 'startup.db'}",
            "COMPTOIR_SECRET_KEY": SECRET,
        }
        subprocess.run([_command(checkouts[0]), "migrate"], env=env, check=True, capture_output=True)
        for checkout in checkouts:  # bytecode of both, also where PYTHONDONTWRITEBYTECODE is set
            python = str(checkout / ".venv" / "bin" / "python")
            subprocess.run([python, "-m", "compileall", "-q", "src"], cwd=checkout, check=True, capture_output=True)
        kinds = {"serve": serve, "sandbox": sandbox, "import": imported}
        found: dict[tuple[str, Path], list[float]] = {(kind, c): [] for kind in kinds for c in checkouts}
        for run in range(options.runs):
            for checkout in checkouts if run % 2 == 0 else checkouts[::-1]:
                for kind, measure in kinds.items():
                    found[kind, checkout].append(measure(checkout, env))
    print(f"{'start':<8} " + " ".join(f"{c!s:>24}" for c in checkouts) + f"   (medians of {options.runs})")
    for kind in kinds:
        medians = [statistics.median(found[kind, c]) for c in checkouts]
        ratio = f"   ratio {medians[-1] / medians[0]:.2f}" if len(medians) == 2 else ""
        print(f"{kind:<8} " + " ".join(f"{m * 1000:>21.0f} ms" for m in medians) + ratio)


if __name__ == "__main__":
    main()
