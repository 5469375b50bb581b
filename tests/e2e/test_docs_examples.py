"""Every request example of docs/api runs, in page order, against a real `comptoir serve
--demo` on SQLite and on PostgreSQL, and answers what the page shows (the convention is in
docs/README.md "Examples", the reading in tests/docs_examples.py). One server per database;
each page starts from the demo's values and keeps what its answers bound."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import SECRET_KEY, create_postgres_database, drop_postgres_database, new_database_name
from tests.docs_examples import Example, ExampleError, examples, fill, match
from tests.e2e.conftest import COMPTOIR, LOOPBACK, Server, _read_line, free_port, wait_until_up

PAGES = sorted((Path(__file__).resolve().parents[2] / "docs" / "api").glob("*.md"))


def demo_values(first_line: str) -> dict[str, str]:
    demo = json.loads(first_line)
    return {
        "location_token": demo["tokens"]["location"],
        "account_token": demo["tokens"]["account"],
        "account_id": demo["account_id"],
        "location_id": demo["location_ids"][0],
        "second_location_id": demo["location_ids"][1],
        "catalog_id": demo["catalog_id"],
        "customer_list_id": demo["customer_list_id"],
        "client_id": demo["client"]["client_id"],
        "client_secret": demo["client"]["client_secret"],
    }


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def demo_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    directory = tmp_path_factory.mktemp(f"docs-{request.param}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | LOOPBACK
    env["COMPTOIR_RATE_LIMITS"] = "off"  # the pages' examples of heavy lists would share one 10/min bucket
    database = new_database_name()
    if request.param == "postgresql":
        env |= {"COMPTOIR_DATABASE_URL": create_postgres_database(database), "COMPTOIR_SECRET_KEY": SECRET_KEY}
    port = free_port()
    log = directory / "server.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [COMPTOIR, "serve", "--demo", "--port", str(port)],
            cwd=directory, env=env, stdout=subprocess.PIPE, stderr=stderr, text=True,
        )  # fmt: skip
        server = Server(process, f"http://127.0.0.1:{port}", _read_line(process.stdout, 60), log)
        try:
            wait_until_up(server)
            yield server
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
            if request.param == "postgresql":
                drop_postgres_database(database)


def run(http: httpx.Client, example: Example, values: dict[str, str]) -> None:
    where = example.where
    headers = [(name, fill(value, values, where)) for name, value in example.headers]
    body = fill(example.body, values, where).encode() if example.body is not None else None
    response = http.request(example.method, fill(example.target, values, where), headers=headers, content=body)
    try:
        answer = response.json()
    except ValueError:
        raise ExampleError(f"{where}: the answer is not JSON: {response.status_code} {response.text!r}") from None
    if response.status_code != example.status:
        raise ExampleError(f"{where}: the page shows {example.status}, the answer is {response.status_code} {answer}")
    try:
        match(example.expected, answer, values)
    except ExampleError as exc:
        raise ExampleError(f"{where}: {exc}\nthe whole answer: {json.dumps(answer)}") from None


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_the_examples_of_the_page_answer_what_it_shows(demo_server: Server, page: Path) -> None:
    assert demo_server.first_line is not None
    values = demo_values(demo_server.first_line)
    with demo_server.http() as http:
        for example in examples(page):
            run(http, example, values)
