"""The statements of docs/architecture.md that the code can be checked against: each test
reads the source tree (imports by `ast`, code lines by pattern) and names what breaks the
rule, so the page stays true as the code changes."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "comptoir"
FEATURES = (
    "accounts", "locations", "orders", "deliveries", "catalogs", "customers", "customer_lists",
    "loyalty", "callbacks", "users", "oauth2", "applications", "connections", "web", "cli", "jobs",
)  # fmt: skip


def modules(*under: str) -> Iterator[Path]:
    for folder in under:
        yield from sorted((SRC / folder).rglob("*.py"))


def imported(path: Path) -> set[str]:
    """The comptoir modules `path` imports, at run time (not under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []  # what a type checker alone reads
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    return {name for name in names if name.startswith("comptoir.")}


def code_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The lines of `path` that are code (not inside a docstring, not a comment)."""
    docstrings = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            docstrings |= set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if number not in docstrings:
            yield number, line.split("#", 1)[0]


def where(path: Path, number: int) -> str:
    return f"{path.relative_to(SRC)}:{number}"


def test_infrastructure_imports_no_feature() -> None:
    """ "Infrastructure sits below the features": http/, auth/, db/, kit/ import none."""
    found = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in modules("http", "auth", "db", "kit", "core", "models", "ratelimit", "request_logs")
        for name in imported(path)
        if name.split(".")[1] in FEATURES
    ]
    assert found == []


def test_kit_imports_nothing_of_comptoir_outside_kit() -> None:
    found = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in modules("kit")
        for name in imported(path)
        if not name.startswith("comptoir.kit")
    ]
    assert found == []


def test_no_repository_calls_a_service() -> None:
    found = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in SRC.rglob("repository.py")
        for name in imported(path)
        if name.endswith(".service") or ".service." in name
    ]
    assert found == []


def test_orders_never_import_deliveries() -> None:
    """A delivery's read shape is rendered by orders: deliveries/ imports orders/, not back."""
    found = [
        str(path.relative_to(SRC)) for path in modules("orders") if any(".deliveries" in n for n in imported(path))
    ]
    assert found == []


def code_matching(pattern: str, *, allowed: set[Path]) -> list[str]:
    """Where a code line of src (outside `allowed` and the migrations, which keep what they
    wrote) matches `pattern`."""
    found = re.compile(pattern)
    return [
        where(path, number)
        for path in SRC.rglob("*.py")
        if path not in allowed and "migrations" not in path.parts
        for number, line in code_lines(path)
        if found.search(line)
    ]


def test_no_owner_is_compared_outside_the_access_model_of_people() -> None:
    assert code_matching(r"owner_id\s*(==|!=)|(==|!=)\s*\S*owner_id\b", allowed={SRC / "auth" / "people.py"}) == []


def test_no_request_state_outside_the_typed_context() -> None:
    assert code_matching(r'request\.state|scope\["state"\]', allowed={SRC / "auth" / "request_context.py"}) == []


def test_catalogs_and_customer_lists_are_made_by_their_service_alone() -> None:
    makers = {SRC / "catalogs" / "service.py", SRC / "customer_lists" / "service.py"}
    assert code_matching(r"(?<!class )\b(Catalog|CustomerList)\(", allowed=makers) == []


def test_the_time_is_read_from_the_clock_alone() -> None:
    """docs/architecture.md "Times and money": `kit.clock.now()`, which tests can move."""
    assert code_matching(r"\bdatetime\.now\(|\bdate\.today\(", allowed={SRC / "kit" / "clock.py"}) == []


def test_every_package_is_in_the_packages_table() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text()
    table = page[page.index("## Packages") : page.index("Feature packages do not all hold")]
    listed = set(re.findall(r"^\| `([a-z_]+)/` \|", table, re.M))
    features = set(re.search(r"^\| features \| (.*) \|$", table, re.M).group(1).split("`")[1::2])  # type: ignore[union-attr]
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages - listed - features == set()
