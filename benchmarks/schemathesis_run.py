"""Schemathesis over /v1/openapi.json against the app in process, on a fresh database:
schemathesis' coverage cases (the boundaries of every field) and `--examples` random valid
and invalid examples per operation. Prints the operations tested, the examples sent, the
answers' statuses and every failure (a server error or an answer that does not match its
documented schema).

    uv run python -m benchmarks.schemathesis_run [--db sqlite|postgresql] [--examples 25] [--no-coverage]
    uv run python -m benchmarks.schemathesis_run --positive --no-coverage [--examples 25]

`--positive` sends only valid examples (those the document allows) and prints, per operation,
the share the API refused with 400 or 422: a refusal there is a constraint the API checks
and the document does not state. Exits 1 when anything failed. `tests/api/test_schemathesis.py` runs the same with fewer
cases on both databases; unlike the test, it sets no failure aside."""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from schemathesis import GenerationMode
from tests.api.conftest import new_shop
from tests.conftest import SECRET_KEY, _migrate, create_postgres_database, drop_postgres_database
from tests.factories import World
from tests.fuzz import Report, fuzz

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.db.engine import create_database


async def run(url: str, examples: int, coverage: bool, positive: bool) -> Report:
    settings = Settings(database_url=url, secret_key=SECRET_KEY, redis_url=None, rate_limits="off")
    database = create_database(settings, pool_size=5)
    try:
        app = create_app(settings, database=database, background=False)
        shop = await new_shop(World(database, settings.server_key()))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            modes = (GenerationMode.POSITIVE,) if positive else (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
            return await fuzz(client, shop, examples, modes=modes, coverage=coverage)
    finally:
        await database.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--examples", type=int, default=25, help="examples per operation and mode")
    parser.add_argument(
        "--no-coverage", dest="coverage", action="store_false", help="leave out schemathesis' coverage phase"
    )
    parser.add_argument("--positive", action="store_true", help="valid examples only; print refusal rates")
    parser.add_argument("--show-refusals", action="store_true", help="with --positive: print each refused example")
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        if args.db == "sqlite":
            url = f"sqlite:///{Path(tmp) / 'comptoir.db'}"
            asyncio.run(_migrate(url))
            report = asyncio.run(run(url, args.examples, args.coverage, args.positive))
        else:
            name = f"comptoir_schemathesis_{uuid.uuid4().hex[:8]}"
            url = create_postgres_database(name)
            try:
                report = asyncio.run(run(url, args.examples, args.coverage, args.positive))
            finally:
                drop_postgres_database(name)
    seconds = time.monotonic() - started
    for failure in report.failures:
        print(f"FAIL {failure.operation} [{failure.mode}] status={failure.status}\n  {failure.request}")
        print("  " + failure.problem.replace("\n", "\n  "))
    unreached = [label for label in report.tested if not report.successes[label]]
    for label in unreached:
        print(f"never 2xx: {label}")
    for label, spent in report.seconds.most_common(5):
        print(f"slowest: {spent:5.1f} s {label}")
    for refusal in report.refusals if args.show_refusals else []:
        print(f"REFUSED {refusal.operation} {refusal.status}\n  {refusal.request}\n  {refusal.problem}")
    refusing = sorted(report.positive, key=lambda label: (-report.refused[label] / report.positive[label], label))
    for label in refusing:
        if report.refused[label]:
            print(f"refused {report.refused[label]:3}/{report.positive[label]:3}  {label}")
    print(f"database            {args.db}")
    print(f"operations tested   {report.operations} ({len(unreached)} never answered 2xx)")
    phase = ", and the coverage phase" if args.coverage else ""
    print(f"examples            {report.examples} ({args.examples} per operation and mode{phase})")
    print(f"statuses            {dict(sorted(report.statuses.items()))}")
    sent, refused = sum(report.positive.values()), sum(report.refused.values())
    if sent:
        most = sum(1 for label in report.positive if report.refused[label] * 2 > report.positive[label])
        print(f"positive refused    {refused}/{sent} ({refused / sent:.1%}); {most} operations refuse most of theirs")
    print(f"failures            {len(report.failures)}")
    print(f"time                {seconds:.0f} s")
    raise SystemExit(1 if report.failures else 0)


if __name__ == "__main__":
    main()
