"""docs/architecture.md "Request bodies": refusing a body costs memory and time bounded by its
size, and never holds up the other requests of the process. A real `comptoir serve`
process, on SQLite and on PostgreSQL, is sent the bodies of tests/security/test_bodies.py and
a 32 MiB catalog of empty products (the catalog limit); meanwhile another client reads
`GET /v1/location` again and again.

Memory is read from /proc/<pid>/status: VmHWM, the process's peak resident memory, after its
peak is reset (`5` written to /proc/<pid>/clear_refs) once the server is warm. A peak is what
an attack costs (VmRSS after the requests would miss memory used then freed); the growth is
that peak minus VmRSS just before the attack.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import Server, fresh_postgres, run_cli, start_server  # noqa: F401 - fixtures
from tests.security.test_bodies import empty_objects, opening_hours_body, products_body

pytestmark = pytest.mark.e2e

MB = 1024 * 1024
JSON = {"Content-Type": "application/json"}


def kb(pid: int, name: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {name} in /proc/{pid}/status")


def catalog_of_empty_products(limit: int) -> bytes:
    prefix, suffix = b'{"data":{"products":', b"}}"
    count = (limit - len(prefix) - len(suffix) - 1) // 3  # "[" + "{}," * count, the last "," a "]"
    body = products_body(count)
    assert limit - 3 < len(body) <= limit
    return body


class Prober(threading.Thread):
    """Another client: `GET /v1/location` in a loop, keeping the slowest answer's time."""

    def __init__(self, server: Server, token: str) -> None:
        super().__init__(daemon=True)
        self.server, self.token = server, token
        self.slowest = 0.0
        self.count = 0
        self.statuses: set[int] = set()
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.server.base_url, timeout=10) as http:
            while not self.stop.is_set():
                started = time.perf_counter()
                response = http.get("/v1/location", headers={"X-Access-Token": self.token})
                self.slowest = max(self.slowest, time.perf_counter() - started)
                self.statuses.add(response.status_code)
                self.count += 1
                time.sleep(0.01)


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
        try:
            for method, path, content, token in attacks:
                response = http.request(
                    method, path.format(id=catalog_id), content=content, headers={"X-Access-Token": token} | JSON
                )
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
    assert prober.statuses == {200}
    assert prober.count > 20
    growth_mb = (peak - before) / 1024
    print(f"{database}: peak growth {growth_mb:.1f} MB, slowest GET {prober.slowest * 1000:.0f} ms of {prober.count}")
    assert growth_mb < 50, f"resident memory grew by {growth_mb:.0f} MB ({before} kB before, peak {peak} kB)"
    assert prober.slowest < 0.1, f"GET /v1/location took {prober.slowest * 1000:.0f} ms during the attack"
