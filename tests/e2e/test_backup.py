"""docs/operations.md "Backups": `comptoir backup` while a server writes orders, then the copy
restored as the database of a new server, with the same server key: the data and the tokens
work there."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import COMPTOIR, LOOPBACK, Server
from tests.waiting import PATIENCE

pytestmark = pytest.mark.e2e

ORDER = {"status": "new", "items": [{"product_name": "Soup", "price": "7.5 EUR", "quantity": 1}]}


def test_a_backup_taken_while_a_server_writes_restores_with_its_data_and_tokens(
    start_server: Callable[..., Server], tmp_path: Path
) -> None:
    live = tmp_path / "live"
    live.mkdir()
    server = start_server("--demo", cwd=live, read_first_line=True)
    assert server.first_line is not None
    token = json.loads(server.first_line)["tokens"]["location"]
    headers = {"X-Access-Token": token}

    created: list[str] = []  # ids of the orders the server answered, in order
    failures: list[str] = []
    stop = threading.Event()

    def write() -> None:
        with httpx.Client(base_url=server.base_url, timeout=PATIENCE) as http:
            while not stop.is_set():
                response = http.post("/v1/location/orders", json=ORDER, headers=headers)
                if response.status_code != 200:
                    failures.append(f"{response.status_code} {response.text}")
                    return
                created.append(response.json()["id"])

    writer = threading.Thread(target=write)
    writer.start()
    try:
        while len(created) < 20 and writer.is_alive():
            threading.Event().wait(0.02)
        done_before = len(created)
        environment = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | LOOPBACK
        result = subprocess.run(
            [COMPTOIR, "backup", "--to", str(tmp_path / "copy.db")],
            cwd=live,
            env=environment,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        done_after = len(created)
        while len(created) < done_after + 5 and writer.is_alive():  # the server goes on writing
            threading.Event().wait(0.02)
    finally:
        stop.set()
        writer.join(timeout=PATIENCE)
    assert failures == []
    assert result.returncode == 0, result.stderr
    copy = tmp_path / "copy.db"
    assert json.loads(result.stdout) == {"backup": str(copy), "bytes": copy.stat().st_size}

    with sqlite3.connect(copy) as connection:
        in_copy = connection.execute("SELECT count(*) FROM orders").fetchone()[0]
    # every order answered before the backup began is in it; none begun after it ended
    assert done_before <= in_copy <= done_after + 1
    assert done_after + 5 <= len(created)

    restored = tmp_path / "restored"
    restored.mkdir()
    shutil.copy(copy, restored / "comptoir.db")
    shutil.copy(live / "comptoir-secret.key", restored / "comptoir-secret.key")
    second = start_server(cwd=restored)
    with second.http() as http:
        first = http.get(f"/v1/location/orders/{created[0]}", headers=headers)
        assert first.status_code == 200, first.text
        assert first.json()["total"] == "7.50 EUR"
        assert http.get(f"/v1/location/orders/{created[done_before - 1]}", headers=headers).status_code == 200
        assert http.get(f"/v1/location/orders/{created[-1]}", headers=headers).status_code == 404
        assert http.post("/v1/location/orders", json=ORDER, headers=headers).status_code == 200
