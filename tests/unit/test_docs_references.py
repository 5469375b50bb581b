"""Nothing a reader sees points to a document they cannot open (docs/README.md "Writing these
pages"): the pages of docs/, the README, every command's `--help`, and every string the code
can show (error messages, help texts, page text) name a docs page or state the rule, never
"spec 4.2", "the specification" or "the integration API specification".

Code comments and docstrings may keep section numbers: they are read by those who hold the
reference. The route and parameter descriptions of the `endpoints.py` modules become OpenAPI
text, left to the checks of the OpenAPI document; their other strings (error messages) are
checked here."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from comptoir.cli.commands import cli

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "comptoir"

# what a reader cannot open: a section number of the reference, or the reference by name
UNOPENABLE = re.compile(r"\bspec(?:ification)?\s+\d|\bthe\s+specification\b|integration API specification", re.I)


def offending_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if UNOPENABLE.search(line)]


def test_the_pattern_catches_what_it_should() -> None:
    assert offending_lines("elements cannot be modified (spec 2.5 rule 7)") == [
        "elements cannot be modified (spec 2.5 rule 7)"
    ]
    assert offending_lines("where the specification leaves a choice") != []
    assert offending_lines("the Integration API specification") != []
    assert offending_lines('see docs/api/orders.md "Elements"; a spec-compliant client') == []


def pages() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_pages_point_only_to_pages_a_reader_can_open(page: Path) -> None:
    assert offending_lines(page.read_text()) == []


def commands(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield (*path, name)


def test_every_command_is_checked() -> None:
    found = set(commands(cli))
    assert {(), ("serve",), ("admin",), ("admin", "connect"), ("admin", "delivery-log")} <= found


@pytest.mark.parametrize("command", list(commands(cli)), ids=lambda command: " ".join(command) or "comptoir")
def test_command_help_points_only_to_pages_a_reader_can_open(command: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*command, "--help"], prog_name="comptoir")
    assert result.exit_code == 0, result.output
    assert offending_lines(result.output) == []


def openapi_text_nodes(tree: ast.AST) -> set[int]:
    """The ids of the strings given as a route's or parameter's `description=` or `summary=`:
    OpenAPI text, checked with the OpenAPI document."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in {"description", "summary"}:
            found.update(id(inner) for inner in ast.walk(node.value))
    return found


def docstring_nodes(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are docstrings (comments of the code, never shown),
    except those of click commands, whose docstrings are their help (checked above)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def shown_strings(path: Path) -> Iterator[tuple[int, str]]:
    """Every string literal of a module but its docstrings: error messages, help texts,
    descriptions, page text."""
    tree = ast.parse(path.read_text())
    skip = docstring_nodes(tree) | (openapi_text_nodes(tree) if path.name == "endpoints.py" else set())
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value


def modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def test_the_scan_finds_messages_and_leaves_docstrings_and_comments(tmp_path: Path) -> None:
    module = tmp_path / "endpoints.py"
    module.write_text(
        '''"""Orders (spec 4.1)."""
def update(body):
    """spec 2.5 rule 7."""
    # spec 2.5 rule 7
    route("/orders", description="Orders (spec 4.1)")
    raise Unprocessable(f"elements cannot be modified (spec 2.5 rule {7}): send ...")
'''
    )
    assert [text for _, text in shown_strings(module) if UNOPENABLE.search(text)] == [
        "elements cannot be modified (spec 2.5 rule "
    ]


def test_strings_of_the_code_point_only_to_pages_a_reader_can_open() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in modules()
        for line, text in shown_strings(path)
        if UNOPENABLE.search(text)
    ]
    assert found == []


def test_templates_point_only_to_pages_a_reader_can_open() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {line}"
        for path in sorted(SRC.rglob("*"))
        if path.is_file() and path.suffix in {".html", ".txt", ".css", ".js", ".md"}
        for line in offending_lines(path.read_text())
    ]
    assert found == []


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub makes them."""
    found = set()
    for line in page.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_every_link_of_the_page_opens(page: Path) -> None:
    """A link to another page of the repository names a file that exists, and a heading of it."""
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # another site
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (anchor and linked.suffix == ".md" and anchor not in anchors(linked)):
            broken.append(target)
    assert broken == []
