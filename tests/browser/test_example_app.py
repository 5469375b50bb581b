"""examples/connect.py, the README's client example, runs the whole flow in a browser."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
from playwright.sync_api import expect

from tests.browser.conftest import PASSWORD, Hub, Phone
from tests.e2e.conftest import free_port
from tests.waiting import PATIENCE

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "connect.py"


def test_the_example_application_connects_a_location(hub: Hub, phone: Phone) -> None:
    owner = hub.new_owner(f"example-{uuid.uuid4().hex[:8]}@example.com", locations=("Quai 7",))
    port = free_port()
    client = hub.cli(
        "admin", "create-client", "--name", "Example app", "--redirect-uri", f"http://127.0.0.1:{port}/callback"
    )
    env = {**os.environ, "COMPTOIR_URL": hub.url, "PORT": str(port)}
    env |= {"CLIENT_ID": str(client["client_id"]), "CLIENT_SECRET": str(client["client_secret"])}
    app = subprocess.Popen([sys.executable, str(EXAMPLE)], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert app.stdout is not None
        assert app.stdout.readline().strip() == f"Open http://127.0.0.1:{port}/"
        page = phone.page
        page.goto(f"http://127.0.0.1:{port}/")
        page.get_by_role("link", name="Connect").click()
        page.get_by_label("Email").fill(str(owner["user"]["email"]))  # type: ignore[index]
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.get_by_role("button", name="Allow").click()
        expect(page.get_by_text("Connected to Quai 7.")).to_be_visible()
        phone.shot("example-connected")
        forged = httpx.get(f"http://127.0.0.1:{port}/callback?code=x&state=not-sent")
        assert (forged.status_code, "Not connected" in forged.text) == (400, True)
    finally:
        app.terminate()
        app.wait(timeout=PATIENCE)
        if app.stdout is not None:
            app.stdout.close()
