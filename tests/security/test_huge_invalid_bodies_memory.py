"""docs/architecture.md "Request bodies": refusing a body costs memory and time bounded by its
size, and never holds up the other requests of the process. A real `comptoir serve`
process, on SQLite and on PostgreSQL, is sent the bodies of tests/security/test_bodies.py and
a 32 MiB catalog of empty products (the catalog limit); meanwhile another client reads
`GET /v1/location` again and again.

Memory is read from /proc/<pid>/status: VmHWM, the process's peak resident memory, after its
peak is reset (`5` written to /proc/<pid>/clear_refs) once the server is warm. A peak is what
an attack costs (VmRSS after the requests would miss memory used then freed); the growth is
that peak minus VmRSS just before the attack.

Nothing here depends on the machine's speed: each attack body is held back halfway until the
other client has been answered once after the attack began, so other requests are shown to be
served while a refusal is in progress however fast the server refuses, and every answer the
other client waited for during the attacks is a 200 within QUICKLY, a bound only a
stalled server reaches. That no step of the refusal holds the event loop is shown exactly, in
process, by tests/security/test_bodies.py (the loop turns at least once per step).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import Server, fresh_postgres, run_cli, start_server  # noqa: F401 - fixtures
from tests.security.test_bodies import catalog_of_empty_products, empty_objects, opening_hours_body, products_body
from tests.waiting import PATIENCE, QUICKLY

pytestmark = pytest.mark.e2e

MB = 1024 * 1024
JSON = {"Content-Type": "application/json"}


def kb(pid: int, name: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {name} in /proc/{pid}/status")


@dataclass
class Probe:
    sent: float
    answered: float
    status: int


class Prober(threading.Thread):
    """Another client: `GET /v1/location` again and again, each probe's times and status kept."""

    def __init__(self, server: Server, token: str) -> None:
        super().__init__(daemon=True)
        self.server, self.token = server, token
        self.probes: list[Probe] = []
        self.answered = threading.Condition()
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.server.base_url, timeout=PATIENCE) as http:
            while not self.stop.is_set():
                sent = time.monotonic()
                status = http.get("/v1/location", headers={"X-Access-Token": self.token}).status_code
                with self.answered:
                    self.probes.append(Probe(sent, time.monotonic(), status))
                    self.answered.notify_all()
                self.stop.wait(0.01)  # a pause, so that the probes do not crowd out the attack

    def answered_once_sent_after(self, moment: float) -> None:
        """Until a probe sent after `moment` has been answered."""
        with self.answered:
            assert self.answered.wait_for(lambda: any(p.sent > moment for p in self.probes), PATIENCE)


def held_halfway(content: bytes, prober: Prober, began: list[float]) -> Iterator[bytes]:
    """`content` in 64 KiB chunks; at its middle, waits for the prober to be answered once
    after the request began (the request is unfinished then: half its body is still to come)."""
    began.append(time.monotonic())
    chunk = 64 * 1024
    middle = len(content) // 2 // chunk * chunk
    for start in range(0, len(content), chunk):
        if start == middle:
            prober.answered_once_sent_after(began[-1])
        yield content[start : start + chunk]


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_refusing_huge_bodies_keeps_memory_flat_and_other_requests_fast(
    database: str,
    start_server: Callable[..., Server],  # noqa: F811 - the fixture imported above
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    env = {
        "COMPTOIR_RATE_LIMITS": "off",
        "COMPTOIR_LOG_LEVEL": "warning",
        "COMPTOIR_SECRET_KEY": "body-refusal-server-key-of-32-bytes-or-more",
    }
    if database == "postgresql":
        env["COMPTOIR_DATABASE_URL"] = request.getfixturevalue("fresh_postgres")
    demo = run_cli("demo", env=env, cwd=tmp_path)
    location, account = demo["tokens"]["location"], demo["tokens"]["account"]  # type: ignore[index]
    server = start_server(env=env)
    pid = server.process.pid
    attacks = [
        ("PATCH", "/v1/location", opening_hours_body(633_000), location),
        ("PUT", "/v1/catalogs/{id}", products_body(1_400_000), account),
        ("PATCH", "/v1/catalogs/{id}/location/inventory", empty_objects(b"", 349_000, b""), location),
        ("PUT", "/v1/catalogs/{id}", catalog_of_empty_products(32 * MB), account),
    ]
    with httpx.Client(base_url=server.base_url, timeout=120) as http:
        created = http.post(
            f"/v1/locations/{demo['location_ids'][0]}/catalogs",  # type: ignore[index]
            json={"name": "Carte", "data": {"categories": [{"ref": "c", "name": "C"}]}},
            headers={"X-Access-Token": account},
        )
        assert created.status_code == 200, created.text
        catalog_id = created.json()["id"]
        # warm: every route once, with a small bad body
        for method, path, _, token in attacks:
            small = b"[{}]" if "inventory" in path else b'{"data":{"products":[{}]}}'
            small = b'{"opening_hours":{"monday":[{}]}}' if path == "/v1/location" else small
            warm = http.request(
                method, path.format(id=catalog_id), content=small, headers={"X-Access-Token": token} | JSON
            )
            assert warm.status_code == 422, warm.text
        before = kb(pid, "VmRSS")
        Path(f"/proc/{pid}/clear_refs").write_text("5")  # the peak (VmHWM) starts again from here
        prober = Prober(server, location)
        prober.start()
        during: list[tuple[float, float]] = []  # each attack: when it began, when it was answered
        try:
            for method, path, content, token in attacks:
                began: list[float] = []
                response = http.request(
                    method,
                    path.format(id=catalog_id),
                    content=held_halfway(content, prober, began),
                    headers={"X-Access-Token": token, "Content-Length": str(len(content))} | JSON,
                )
                during.append((began[0], time.monotonic()))
                assert response.status_code == 422, response.text[:300]
                assert len(response.json()["errors"]) == 50
                assert len(response.content) < 10_000
        finally:
            prober.stop.set()
            prober.join()
        peak = kb(pid, "VmHWM")
        assert (
            http.get(f"/v1/catalogs/{catalog_id}", headers={"X-Access-Token": account}).json()["data"]["categories"][0][
                "ref"
            ]
            == "c"
        )
    # every attack had a probe sent and answered while it was in progress
    for began, ended in during:
        assert [p for p in prober.probes if began < p.sent and p.answered < ended], (began, ended)
    meanwhile = [p for p in prober.probes if any(p.sent < ended and p.answered > began for began, ended in during)]
    slowest = max(p.answered - p.sent for p in meanwhile)
    growth_mb = (peak - before) / 1024
    print(f"{database}: peak growth {growth_mb:.1f} MB, slowest GET {slowest * 1000:.0f} ms of {len(meanwhile)}")
    assert {p.status for p in prober.probes} == {200}
    assert growth_mb < 50, f"resident memory grew by {growth_mb:.0f} MB ({before} kB before, peak {peak} kB)"
    assert slowest < QUICKLY, f"GET /v1/location took {slowest * 1000:.0f} ms during the attack"
