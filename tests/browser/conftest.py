"""Browser tests: a real `comptoir serve`, Debian's chromium driven by Playwright
through the accessible names of docs/api/oauth.md "Pages", at phone width (360 px).

Each page met is saved as a screenshot under `artifacts/screenshots/` (not committed) and
checked for horizontal overflow. The client's redirect URI is answered by the browser
itself (`Page.route`), as the application's own page would be.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, Playwright, Request, expect, sync_playwright
from sqlalchemy import text

from comptoir.config import Settings
from comptoir.db.engine import create_database
from tests.conftest import create_postgres_database, drop_postgres_database, new_database_name
from tests.e2e.conftest import COMPTOIR, LOOPBACK, Server, cli_in_process, free_port, wait_until_up
from tests.waiting import PATIENCE

# What a page is expected to show, it may take a loaded machine seconds to show (Playwright's
# own default is 5 s): only a page that never shows it waits this long.
expect.set_options(timeout=PATIENCE * 1000)

CHROMIUM = os.environ.get("COMPTOIR_TEST_CHROMIUM", "/usr/bin/chromium")
# Chromium flags for a closed network (library env notes): no background connections.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
T = TypeVar("T")
PHONE = {"width": 360, "height": 740}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
APP = "https://app.example/callback"  # the application's redirect URI, answered by the browser
OOB_REDIRECT = "urn:ietf:wg:oauth:2.0:oob"
PASSWORD = "correct horse 42"

if shutil.which(CHROMIUM) is None:  # .ci/run installs it; say so rather than skip
    raise pytest.UsageError(f"Browser tests need Debian's chromium at {CHROMIUM}: apt-get install -y chromium")


def failed_for_real(request: Request) -> bool:
    """Whether a failed request is a fault of the page: not the icon fetch Chromium starts on
    its own, a board's open stream (which never ends by itself), nor a script's read still on
    its way (the board fetching its list on the stream's news), cancelled (`net::ERR_ABORTED`)
    when the page navigates away, as it does when a button on the board posts its form.
    (No page's script aborts its own reads, so an aborted fetch is always the navigation's.)"""
    icon = urlsplit(request.url).path in ("/favicon.svg", "/favicon.ico")
    cut = icon or request.resource_type in ("eventsource", "fetch")
    return not (cut and request.failure == "net::ERR_ABORTED")


@dataclass
class Hub:
    """A running Comptoir and the operator CLI against its database."""

    server: Server
    env: dict[str, str]
    cwd: Path

    @property
    def url(self) -> str:
        return self.server.base_url

    def cli(self, *args: str) -> dict[str, object]:
        """`comptoir *args` against the hub's database (in this process)."""
        return cli_in_process(*args, env=self.env)

    def scalar(self, sql: str) -> object:
        """One value read from the hub's database (in a thread: Playwright keeps an event
        loop running in this one)."""

        async def read() -> object:
            settings = Settings(
                database_url=self.env["COMPTOIR_DATABASE_URL"], secret_key=self.env["COMPTOIR_SECRET_KEY"]
            )
            db = create_database(settings, pool_size=1)
            try:
                async with db.transaction(write=False) as session:
                    return await session.scalar(text(sql))
            finally:
                await db.dispose()

        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, read()).result()

    def new_client(self, name: str) -> dict[str, str]:
        created = self.cli("admin", "create-client", "--name", name, "--redirect-uri", APP)
        return {k: str(v) for k, v in created.items() if k in ("client_id", "client_secret")}

    def new_owner(self, email: str, *, locations: tuple[str, ...] = ("Main street",)) -> dict[str, object]:
        user = self.cli("admin", "create-user", "--email", email, "--password", PASSWORD, "--first-name", "Ada")
        account = self.cli("admin", "create-account", "--owner", email, "--name", f"{email} shop", "--currency", "EUR")
        made = [
            self.cli("admin", "create-location", "--account", str(account["id"]), "--name", name, "--country", "FR")
            for name in locations
        ]
        return {"user": user, "account": account, "locations": made}

    def exchange(self, client: dict[str, str], code: str, redirect_uri: str = APP) -> dict[str, object]:
        answer = httpx.post(
            f"{self.url}/oauth2/v1/token",
            data={"code": code, "redirect_uri": redirect_uri},
            auth=(client["client_id"], client["client_secret"]),
        )
        assert answer.status_code == 200, answer.text
        return answer.json()

    def get(self, path: str, token: str) -> httpx.Response:
        return httpx.get(f"{self.url}{path}", headers={"X-Access-Token": token})

    def authorize_url(self, client: dict[str, str], scope: str, redirect_uri: str = APP, **params: str) -> str:
        query = {"client_id": client["client_id"], "redirect_uri": redirect_uri, "scope": scope, **params}
        return f"{self.url}/oauth2/v1/authorize?{urlencode(query)}"


# The pages in a browser, on SQLite; every storage rule of the flow is tested on both
# databases over HTTP (tests/api/oauth2). COMPTOIR_TEST_BROWSER_POSTGRES=1 adds PostgreSQL.
HUB_DATABASES = ["sqlite", "postgresql"] if os.environ.get("COMPTOIR_TEST_BROWSER_POSTGRES") else ["sqlite"]


@pytest.fixture(scope="module", params=HUB_DATABASES)
def hub(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    cwd = tmp_path_factory.mktemp("hub")
    database = None
    if request.param == "sqlite":
        url = f"sqlite:///{cwd / 'comptoir.db'}"
    else:
        database = new_database_name()
        url = _off_loop(create_postgres_database, database)
    env = {
        "COMPTOIR_DATABASE_URL": url,
        "COMPTOIR_SECRET_KEY": "browser-tests-secret-key-32-bytes-long",
        "COMPTOIR_RATE_LIMITS": "off",
    }
    port = free_port()  # `serve` applies the migrations itself
    log_path = cwd / "server.log"
    with log_path.open("w") as log:
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | LOOPBACK | env
        process = subprocess.Popen(
            [COMPTOIR, "serve", "--port", str(port)], cwd=cwd, env=full_env, stdout=log, stderr=log, text=True
        )
        server = Server(process, f"http://127.0.0.1:{port}", None, log_path)
        try:
            wait_until_up(server)
            yield Hub(server, env, cwd)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if database is not None:
                _off_loop(drop_postgres_database, database)


def _off_loop(function: Callable[[str], T], argument: str) -> T:
    """Run `function` (which uses asyncio.run) in a thread: Playwright's sync API keeps an
    event loop running in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(function, argument).result()


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    """Per module: Playwright's sync API keeps an event loop running in this thread while it
    lives, which the tests after these (asyncio.run) must not find."""
    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield launched
    launched.close()


@dataclass
class Phone:
    """A fresh browser profile at 360 px; `returned` holds what the application received."""

    page: Page
    name: str
    returned: list[dict[str, str]] = field(default_factory=list)
    shots: int = 0

    def shot(self, what: str) -> None:
        """Screenshot the page, and check it fits the phone's width."""
        self.page.wait_for_load_state()
        self.shots += 1
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=SCREENSHOTS / f"{self.name}-{self.shots:02d}-{what}.png", full_page=True)
        overflow = self.page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= PHONE["width"], f"{what}: {overflow} px wide at {PHONE['width']} px"

    def back_at_app(self) -> dict[str, str]:
        """What the application's redirect URI received, once the browser is there."""
        self.page.wait_for_url(f"{APP}?*")
        return self.returned[-1]


@pytest.fixture
def phone(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Phone]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=1)
    page = context.new_page()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name).strip("-")
    phone = Phone(page, name)

    def application(route):  # type: ignore[no-untyped-def]
        phone.returned.append({k: v[0] for k, v in parse_qs(urlsplit(route.request.url).query).items()})
        route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>App</title><p>Connected.</p>")

    page.route(f"{APP}*", application)
    yield phone
    context.close()
