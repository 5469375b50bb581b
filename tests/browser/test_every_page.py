"""Every back-office page, as its owner sees it with real data, at 1280, 768 and 375 px.

A crawler signs in as the demo owner (`comptoir demo`, given orders of several statuses,
customers, a catalog with options and stock, a connection with a request log and callback
deliveries) and walks, breadth first, every same-origin GET link reachable from `/`: one URL
per route (ids are a route's parameters), the API, its reference and the metrics left out.
With /login, /signup (signed out) and an unknown URL (an HTML 404), each page at each width
must show no console error, no failed request, no sideways scroll, no serious or critical
axe-core violation, and a CSRF token in every form that posts (docs/back-office.md).
Each visit saves a full-page screenshot as artifacts/screenshots/<width>/<page>.png.

A script in what a user typed (names, notes) is shown as text on the page that shows it.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from fastapi.routing import APIRoute
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Dialog, Page, Request, Response

import comptoir.web
from tests.browser.conftest import APP, PASSWORD, SCREENSHOTS, Hub, failed_for_real
from tests.receiver import Receiver, running_receiver
from tests.waiting import PATIENCE, wait_until

WIDTHS = {1280: 800, 768: 1024, 375: 812}  # viewport width -> height
# The routes the walk from `/` reaches: one test per page and width. A page added to the
# back office is added here (test_the_walk_reaches_every_listed_page_and_no_other says which).
PAGES = (
    "/",
    "/accounts/new",
    "/accounts/{account_id}",
    "/accounts/{account_id}/connections",
    "/accounts/{account_id}/orders",
    "/accounts/{account_id}/catalogs",
    "/accounts/{account_id}/customer-lists",
    "/accounts/{account_id}/locations/new",
    "/locations/{location_id}",
    "/locations/{location_id}/orders",
    "/locations/{location_id}/orders/{order_id}",
    "/locations/{location_id}/today",
    "/locations/{location_id}/customers",
    "/locations/{location_id}/catalogs",
    "/locations/{location_id}/connections",
    "/connections/{connection_id}",
    "/connections/{connection_id}/deliveries",
    "/catalogs/{catalog_id}",
    "/customer-lists/{list_id}",
    "/customer-lists/{list_id}/customers/{customer_id}",
    "/developers",
    "/developers/{client_id}",
)
SIGNED_OUT = ("/login", "/signup")
NOT_FOUND = "/nope"
MAX_PAGES = 80  # the walk fetches at most this many URLs; reaching it fails the walk
NOT_WALKED = ("/v1", "/oauth2", "/docs", "/metrics", "/.well-known")  # API, its reference, metrics
SERIOUS = ("serious", "critical")


def page_name(route: str) -> str:
    """`/locations/{location_id}/orders` -> `locations-id-orders`; `/` -> `home`."""
    parts = ["id" if part.startswith("{") else part for part in route.strip("/").split("/")]
    return "-".join(parts) or "home"


# --- the owner's data ---------------------------------------------------------------------


@dataclass
class Owner:
    email: str
    password: str
    demo: dict[str, Any]
    receiver: Receiver


def _call(method: str, url: str, token: str, body: object) -> dict[str, Any]:
    answer = httpx.request(method, url, json=body, headers={"X-Access-Token": token}, timeout=PATIENCE)
    # every success of the API is a 200, creations included (docs/api/conventions.md "Errors")
    assert answer.status_code == 200, f"{method} {url}: {answer.status_code} {answer.text}"
    return answer.json()


MENU = {
    "categories": [{"ref": "mains", "name": "Mains"}, {"ref": "drinks", "name": "Drinks"}],
    "option_lists": [
        {
            "ref": "sides",
            "name": "Sides",
            "options": [{"ref": "fries", "name": "Fries"}, {"ref": "salad", "name": "Salad", "price": "1.50 EUR"}],
        }
    ],
    "products": [
        {
            "ref": "burger",
            "category_ref": "mains",
            "name": "Burger",
            "option_list_refs": ["sides"],
            "skus": [{"ref": "burger", "price": "12.50 EUR"}, {"ref": "burger-xl", "name": "XL", "price": "15 EUR"}],
        },
        {
            "ref": "lemonade",
            "category_ref": "drinks",
            "name": "Lemonade",
            "skus": [{"ref": "lemonade", "price": "3 EUR"}],
        },
    ],
}


def _order(status: str, ref: str, **extra: object) -> dict[str, object]:
    return {
        "status": status,
        "ref": ref,
        "service_type": "collection",
        "items": [
            {
                "product_name": "Burger",
                "sku_name": "XL",
                "price": "15.00 EUR",
                "quantity": "2",
                "options": [{"option_list_name": "Sides", "name": "Salad", "price": "1.50 EUR", "quantity": 1}],
            },
            {"product_name": "Lemonade", "price": "3.00 EUR", "quantity": "0.5"},
        ],
        **extra,
    }


@pytest.fixture(scope="module")
def owner(hub: Hub) -> Iterator[Owner]:
    """The demo owner, whose first location has a catalog, customers, orders of several
    statuses and a connection with a request log and callback deliveries; the second location
    has orders placed through the account's connection."""
    demo = hub.cli("demo")
    token, account_token = str(demo["tokens"]["location"]), str(demo["tokens"]["account"])  # type: ignore[index]
    v1 = f"{hub.url}/v1"
    user = demo["user"]  # type: ignore[index]
    paris, lyon = demo["location_ids"]  # type: ignore[misc]
    with running_receiver() as receiver:
        # Orders come from a second application too: a client never receives the events it
        # caused (docs/api/callbacks-events.md "Who receives an event"), and every connection
        # the walk may meet has a callback with deliveries and a request log.
        till = hub.cli("admin", "create-client", "--name", "Till", "--redirect-uri", APP, "--owner", str(user["email"]))
        till_token = str(
            hub.cli(
                "admin", "connect", "--client", str(till["client_id"]), "--user", str(user["email"]),
                "--scope", "location[orders.write]", "--location", str(paris),
            )["access_token"]
        )  # fmt: skip
        for path, each in (("/location", token), ("/account", account_token), ("/till", till_token)):
            _call(
                "POST", f"{v1}/callback", each, {"url": receiver.url(path), "events": {"order": ["create", "update"]}}
            )
        _call("PUT", f"{v1}/catalogs/{demo['catalog_id']}", token, {"data": MENU})
        stock = [{"sku_ref": "burger", "stock": "4"}, {"option_ref": "fries", "stock": "0"}]
        _call("PUT", f"{v1}/catalogs/{demo['catalog_id']}/location/inventory", token, stock)
        people = [("Louis", "Pasteur", "+33611223344"), ("Marie", "Curie", "+33611223355"), ("Ada", "Lovelace", None)]
        customers = [
            _call(
                "POST",
                f"{v1}/customer_lists/{demo['customer_list_id']}/customers",
                token,
                {"first_name": first, "last_name": last, "email": f"{first.lower()}@example.com", "phone": phone},
            )
            for first, last, phone in people
        ]
        statuses = ("new", "accepted", "in_preparation", "completed", "rejected", "cancelled")
        orders = [
            _call("POST", f"{v1}/location/orders", till_token, _order(s, f"P-{n}", customer_id=customers[n % 3]["id"]))
            for n, s in enumerate(statuses)
        ]
        _call("PATCH", f"{v1}/location/orders/{orders[0]['id']}", token, {"status": "received"})
        for n, status in enumerate(("new", "awaiting_collection")):
            _call("POST", f"{v1}/locations/{lyon}/orders", account_token, _order(status, f"L-{n}"))
        for path, count in (("/location", 6), ("/account", 6), ("/till", 1)):
            receiver.wait_for(path, count)
        # the request log is written about once a second, in order: the last call's line, then all
        last = f"SELECT count(*) FROM request_logs WHERE method = 'POST' AND path = '/v1/locations/{lyon}/orders'"
        wait_until(lambda: hub.scalar(last) == 2, "the request log written")
        yield Owner(str(user["email"]), str(user["password"]), demo, receiver)


# --- the walk -----------------------------------------------------------------------------


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)


def _back_office_routes() -> list[APIRoute]:
    """The GET routes of every router in comptoir.web, the most specific first
    (`/accounts/new` before `/accounts/{account_id}`)."""
    routes: list[APIRoute] = []
    for module_info in pkgutil.iter_modules(comptoir.web.__path__):
        router = getattr(importlib.import_module(f"comptoir.web.{module_info.name}"), "router", None)
        routes += [r for r in getattr(router, "routes", ()) if isinstance(r, APIRoute) and "GET" in r.methods]
    return sorted(routes, key=lambda r: r.path.count("{"))


def _route_of(path: str, routes: list[APIRoute]) -> str:
    return next((r.path for r in routes if r.path_regex.match(path)), path)


@dataclass
class Walk:
    """The first URL met for each route, in the order met; links that did not answer 200."""

    pages: dict[str, str] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)
    fetched: int = 0


def _form_token(http: httpx.Client, path: str) -> str:
    form = http.get(path).text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form)
    assert csrf is not None, form
    return csrf.group(1)


def _sign_in(http: httpx.Client, email: str, password: str) -> None:
    answer = http.post("/login", data={"csrf": _form_token(http, "/login"), "email": email, "password": password})
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == "/"


def _walk(http: httpx.Client, origin: str) -> Walk:
    routes = _back_office_routes()
    walk = Walk()
    queue: deque[tuple[str, str]] = deque([("/", "(start)")])
    while queue:
        path, linked_from = queue.popleft()
        route = _route_of(urlsplit(path).path, routes)
        if route in walk.pages:
            continue
        assert walk.fetched < MAX_PAGES, f"the walk met more than {MAX_PAGES} pages: {list(walk.pages)}"
        walk.fetched += 1
        answer = http.get(path)
        if answer.status_code != 200:
            walk.broken.append(f"{path} (linked from {linked_from}): {answer.status_code}")
            continue
        if not answer.headers.get("content-type", "").startswith("text/html"):
            continue
        walk.pages[route] = path
        parser = _Links()
        parser.feed(answer.text)
        for href in parser.hrefs:
            target = urlsplit(urldefrag(urljoin(f"{origin}{path}", href))[0])
            if f"{target.scheme}://{target.netloc}" != origin or target.path == "/logout":
                continue
            if any(target.path == prefix or target.path.startswith(f"{prefix}/") for prefix in NOT_WALKED):
                continue
            queue.append((target.path + (f"?{target.query}" if target.query else ""), path))
    return walk


@pytest.fixture(scope="module")
def walk(hub: Hub, owner: Owner) -> Walk:
    with httpx.Client(base_url=hub.url, timeout=PATIENCE) as http:
        _sign_in(http, owner.email, owner.password)
        return _walk(http, hub.url)


# --- the screens ----------------------------------------------------------------------------


@dataclass
class Screen:
    """One browser context at one width, reused by every page of that width; `problems`
    collects what the browser reported since the last visit."""

    context: BrowserContext
    page: Page
    width: int
    problems: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    expected_404: str | None = None

    def visit(self, url: str) -> Response:
        self.page.goto("about:blank")  # what the previous page still had in flight ends here
        self.problems.clear()
        self.dialogs.clear()
        answer = self.page.goto(url)
        assert answer is not None
        return answer

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        where = message.location.get("url", "")
        if urlsplit(where).path == "/favicon.ico":
            return  # a page without an icon of its own: check_page reports it on every page
        if self.expected_404 == where and message.text.startswith("Failed to load resource"):
            return  # Chromium's own line for the 404 page's document
        self.problems.append(f"console error: {message.text} ({where})")

    def on_response(self, response: Response) -> None:
        if response.status < 400:
            return
        if response.url == self.expected_404 and response.request.resource_type == "document":
            return
        self.problems.append(f"{response.status} for {response.request.method} {response.url}")

    def on_failed(self, request: Request) -> None:
        if failed_for_real(request):
            self.problems.append(f"request failed: {request.method} {request.url} ({request.failure})")

    def on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()


def _screen(browser: Browser, width: int, cookies: list[Any]) -> Screen:
    context = browser.new_context(viewport={"width": width, "height": WIDTHS[width]}, device_scale_factor=1)
    context.add_cookies(cookies)
    screen = Screen(context, context.new_page(), width)
    screen.page.on("console", screen.on_console)
    screen.page.on("pageerror", lambda error: screen.problems.append(f"uncaught error: {error}"))
    screen.page.on("response", screen.on_response)
    screen.page.on("requestfailed", screen.on_failed)
    screen.page.on("dialog", screen.on_dialog)
    return screen


class Screens:
    """A signed-in and a signed-out context per width, made when first needed."""

    def __init__(self, browser: Browser, hub: Hub, owner: Owner) -> None:
        self.browser, self.hub, self.owner = browser, hub, owner
        self.made: dict[tuple[int, bool], Screen] = {}
        self.cookies: list[Any] | None = None

    def get(self, width: int, signed_in: bool) -> Screen:
        if (width, signed_in) not in self.made:
            self.made[width, signed_in] = _screen(self.browser, width, self._cookies() if signed_in else [])
        return self.made[width, signed_in]

    def _cookies(self) -> list[Any]:
        if self.cookies is None:
            with httpx.Client(base_url=self.hub.url, timeout=PATIENCE) as http:
                _sign_in(http, self.owner.email, self.owner.password)
                self.cookies = [{"name": c.name, "value": c.value, "url": self.hub.url} for c in http.cookies.jar]
        return self.cookies

    def close(self) -> None:
        for screen in self.made.values():
            screen.context.close()


@pytest.fixture(scope="module")
def screens(browser: Browser, hub: Hub, owner: Owner) -> Iterator[Screens]:
    made = Screens(browser, hub, owner)
    yield made
    made.close()


AXE = Axe()
FORMS_WITHOUT_CSRF = """() => Array.from(document.forms)
  .filter(f => f.method === "post")
  .filter(f => !Array.from(f.elements).some(e => e.type === "hidden" && e.name === "csrf" && e.value))
  .map(f => f.getAttribute("action") || "(no action)")"""


def axe_report(results: dict[str, Any]) -> list[str]:
    """Each serious or critical violation: rule, impact, what it asks, and where."""
    lines = []
    for violation in results["violations"]:
        if violation["impact"] not in SERIOUS:
            continue
        lines.append(f"axe {violation['id']} ({violation['impact']}): {violation['help']} [{violation['helpUrl']}]")
        for node in violation["nodes"][:5]:
            summary = " ".join((node.get("failureSummary") or "").split())
            lines.append(f"    at {', '.join(map(str, node['target']))}: {summary[:300]}")
        if len(violation["nodes"]) > 5:
            lines.append(f"    ... and {len(violation['nodes']) - 5} more")
    return lines


def _icon_problems(page: Page) -> list[str]:
    """The page names its icon, and the icon answers as an image."""
    icon = page.evaluate("document.querySelector('link[rel~=icon]')?.href ?? null")
    if icon is None:
        return ["no <link rel=icon>: the browser asks /favicon.ico"]
    if icon.startswith("data:image/"):
        return []
    answer = page.request.get(icon)
    kind = answer.headers.get("content-type", "")
    return [] if answer.ok and kind.startswith("image/") else [f"icon {icon}: {answer.status} {kind}"]


def check_page(screen: Screen, url: str, name: str, status: int = 200) -> None:
    """Visit `url` and assert every rule of the module's docstring; the message lists every
    problem found at once."""
    screen.expected_404 = url if status == 404 else None
    answer = screen.visit(url)
    problems = []
    if answer.status != status:
        problems.append(f"answered {answer.status}, expected {status}")
    if not answer.headers.get("content-type", "").startswith("text/html"):
        problems.append(f"content-type {answer.headers.get('content-type')!r}, expected HTML")
    wide = screen.page.evaluate("document.documentElement.scrollWidth")
    if wide > screen.width:
        problems.append(f"scrolls sideways: {wide} px wide at {screen.width} px")
    problems += [f"form posting to {action} has no csrf input" for action in screen.page.evaluate(FORMS_WITHOUT_CSRF)]
    problems += _icon_problems(screen.page)
    problems += axe_report(AXE.run(screen.page).response)
    folder = SCREENSHOTS / str(screen.width)  # artifacts/screenshots/<width>/<page>.png
    folder.mkdir(parents=True, exist_ok=True)
    screen.page.screenshot(path=folder / f"{name}.png", full_page=True)
    problems += screen.problems + [f"dialog opened: {d}" for d in screen.dialogs]
    assert not problems, f"{name} at {screen.width} px ({url}):\n" + "\n".join(problems)


# --- the tests ------------------------------------------------------------------------------


def test_the_walk_reaches_every_listed_page_and_no_other(walk: Walk) -> None:
    unlisted = {route: url for route, url in walk.pages.items() if route not in PAGES}
    missing = [route for route in PAGES if route not in walk.pages]
    assert (walk.broken, unlisted, missing) == ([], {}, []), (
        f"broken links: {walk.broken}; pages to add to PAGES: {unlisted}; listed pages no link reaches: {missing}"
    )


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("route", PAGES, ids=page_name)
def test_page(route: str, width: int, walk: Walk, screens: Screens, hub: Hub) -> None:
    assert route in walk.pages, f"no link from / reaches {route}"
    check_page(screens.get(width, signed_in=True), f"{hub.url}{walk.pages[route]}", page_name(route))


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("path", SIGNED_OUT, ids=page_name)
def test_signed_out_page(path: str, width: int, screens: Screens, hub: Hub) -> None:
    check_page(screens.get(width, signed_in=False), f"{hub.url}{path}", page_name(path))


@pytest.mark.parametrize("width", list(WIDTHS))
def test_unknown_url_is_an_html_404(width: int, screens: Screens, hub: Hub) -> None:
    check_page(screens.get(width, signed_in=True), f"{hub.url}{NOT_FOUND}", "not-found", status=404)


# --- a script in user text ------------------------------------------------------------------

SCRIPT = "<script>window.__xss=1</script><img src=x onerror=window.__xss=1>"


@dataclass
class Planted:
    """Where the owner of an account full of scripts sees each of them."""

    cookies: list[Any]
    pages: dict[str, tuple[str, list[str]]]  # name -> (path, texts the page must show)


@pytest.fixture(scope="module")
def planted(hub: Hub, owner: Owner) -> Planted:
    """A user signs up with scripts in their names, then an application writes more through
    the API: a catalog and its product, a customer list and customer, an order's notes."""
    email = "script-owner@example.com"
    with httpx.Client(base_url=hub.url, timeout=PATIENCE) as http:
        fields = {
            "first_name": f"Eve {SCRIPT}",
            "last_name": "Doe",
            "email": email,
            "password": PASSWORD,
            "account_name": f"Account {SCRIPT}",
            "location_name": f"Place {SCRIPT}",
            "country": "FR",
            "currency": "EUR",
        }
        signed_up = http.post("/signup", data={"csrf": _form_token(http, "/signup"), **fields})
        assert signed_up.status_code == 303, signed_up.text
        home = http.get("/").text
        cookies = [{"name": c.name, "value": c.value, "url": hub.url} for c in http.cookies.jar]
    account = re.search(r'href="/accounts/(?!new")([^"/]+)"', home)
    location = re.search(r'href="/locations/([^"/]+)"', home)
    assert account is not None, home
    assert location is not None, home
    client_id, place = owner.demo["client"]["client_id"], location.group(1)
    scope = "location[orders.write,all_catalogs.write,all_customer_lists.write]"
    connected = hub.cli(
        "admin", "connect", "--client", client_id, "--user", email, "--scope", scope, "--location", place
    )
    token, v1 = str(connected["access_token"]), f"{hub.url}/v1"
    menu = {
        "categories": [{"ref": "c", "name": f"Kind {SCRIPT}"}],
        "products": [
            {"ref": "d", "category_ref": "c", "name": f"Dish {SCRIPT}", "skus": [{"ref": "d", "price": "9 EUR"}]}
        ],
    }
    catalog = _call("POST", f"{v1}/location/catalogs", token, {"name": f"Menu {SCRIPT}", "data": menu})
    customers = _call("POST", f"{v1}/location/customer_lists", token, {"name": f"List {SCRIPT}"})
    customer = _call("POST", f"{v1}/customer_lists/{customers['id']}/customers", token, {"first_name": f"Cy {SCRIPT}"})
    notes = {"customer_notes": f"Ring {SCRIPT}", "seller_notes": f"Note {SCRIPT}"}
    order = _call("POST", f"{v1}/location/orders", token, _order("new", "X-1", customer_id=customer["id"], **notes))
    return Planted(
        cookies,
        {
            "home": ("/", [f"Account {SCRIPT}", f"Place {SCRIPT}"]),
            "account": (f"/accounts/{account.group(1)}", [f"Account {SCRIPT}", f"Place {SCRIPT}"]),
            "location": (f"/locations/{place}", [f"Place {SCRIPT}"]),
            "catalog": (f"/catalogs/{catalog['id']}", [f"Menu {SCRIPT}", f"Kind {SCRIPT}", f"Dish {SCRIPT}"]),
            "customer-list": (f"/customer-lists/{customers['id']}", [f"List {SCRIPT}", f"Cy {SCRIPT}"]),
            "customer": (f"/customer-lists/{customers['id']}/customers/{customer['id']}", [f"Cy {SCRIPT}"]),
            "order": (f"/locations/{place}/orders/{order['id']}", [f"Ring {SCRIPT}", f"Note {SCRIPT}"]),
        },
    )


@pytest.fixture(scope="module")
def script_screen(browser: Browser, planted: Planted) -> Iterator[Screen]:
    screen = _screen(browser, 1280, planted.cookies)
    yield screen
    screen.context.close()


@pytest.mark.parametrize("name", ["home", "account", "location", "catalog", "customer-list", "customer", "order"])
def test_a_script_in_user_text_is_shown_as_text(name: str, planted: Planted, script_screen: Screen, hub: Hub) -> None:
    path, texts = planted.pages[name]
    answer = script_screen.visit(f"{hub.url}{path}")
    assert answer.status == 200
    shown = script_screen.page.evaluate("document.body.textContent")
    assert [text for text in texts if text not in shown] == []
    assert script_screen.page.evaluate("typeof window.__xss") == "undefined"
    assert script_screen.dialogs == []
    assert script_screen.problems == []  # the <img src=x> made no request
