"""The executable examples of docs/api (docs/README.md "Examples"): how a page's fenced blocks
are read, and how an answer is matched against the one the page shows.

A request is a fenced `http` block: the request line, headers, a blank line and the body. The
fenced `json` block right after it is the answer; its info string may add the status
(```` ```json 422 ````), 200 otherwise. In both, `{name}` stands for a value: the demo's
(`{location_token}`, `{location_id}`, ...) or one an earlier answer of the page bound. In an
answer, a string that is exactly `"{name}"` binds `name` to the value found there the first
time and must equal it afterwards; `"..."` matches any value; an object holding the key
`"..."` matches an object that has at least its other keys. Any other fenced block, and an
`http` block with no answer, must follow a line `<!-- illustrative: the reason -->`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FENCE = re.compile(r"^```(\S*)\s*(.*)$")
ILLUSTRATIVE = re.compile(r"^<!--\s*illustrative:\s*\S.*-->$")
NAME = re.compile(r"\{([a-z][a-z0-9_]*)\}")
ANY = "..."


class ExampleError(AssertionError):
    pass


@dataclass
class Block:
    info: str
    args: str
    text: str
    line: int  # of the opening fence, 1-based
    illustrative: bool


@dataclass
class Example:
    page: str
    line: int
    method: str
    target: str
    headers: list[tuple[str, str]]
    body: str | None
    status: int
    expected: Any = field(default=None)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(text: str) -> list[Block]:
    found: list[Block] = []
    lines = text.splitlines()
    index = 0
    last_text = ""
    while index < len(lines):
        line = lines[index]
        match = FENCE.match(line)
        if match is None:
            if line.strip():
                last_text = line.strip()
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            raise ExampleError(f"line {index + 1}: a fenced block is never closed")
        found.append(
            Block(
                match.group(1), match.group(2).strip(), "\n".join(lines[index + 1 : end]), index + 1,
                bool(ILLUSTRATIVE.match(last_text)),
            )
        )  # fmt: skip
        last_text = ""
        index = end + 1
    return found


def examples(page: Path) -> list[Example]:
    """The page's executable examples, in order; raises on a block that neither runs nor says
    why it is illustrative."""
    found: list[Example] = []
    pending: Example | None = None
    for block in blocks(page.read_text()):
        where = f"{page.name}:{block.line}"
        if pending is not None:
            if block.info != "json":
                raise ExampleError(f"{pending.where}: an http example is followed by its json answer")
            pending.status = int(block.args) if block.args else 200
            try:
                pending.expected = json.loads(block.text)
            except ValueError as exc:
                raise ExampleError(f"{where}: the answer is not JSON ({exc})") from None
            found.append(pending)
            pending = None
        elif block.illustrative:
            continue
        elif block.info == "http":
            pending = request(page.name, block)
        else:
            raise ExampleError(f"{where}: a ```{block.info} block that does not run says why after <!-- illustrative:")
    if pending is not None:
        raise ExampleError(f"{pending.where}: an http example is followed by its json answer")
    return found


def request(page: str, block: Block) -> Example:
    head, _, body = block.text.partition("\n\n")
    lines = head.splitlines()
    parts = lines[0].split()
    if not 2 <= len(parts) <= 3 or not parts[1].startswith("/"):
        raise ExampleError(f"{page}:{block.line}: the request line is `METHOD /path`, not {lines[0]!r}")
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            raise ExampleError(f"{page}:{block.line}: {line!r} is not a header")
        headers.append((name.strip(), value.strip()))
    return Example(page, block.line, parts[0], parts[1], headers, body or None, 200)


def fill(text: str, values: dict[str, str], where: str) -> str:
    def value(match: re.Match[str]) -> str:
        if match.group(1) not in values:
            raise ExampleError(f"{where}: {{{match.group(1)}}} is used before an answer names it")
        return values[match.group(1)]

    return NAME.sub(value, text)


def match(expected: Any, actual: Any, values: dict[str, str], path: str = "$") -> None:
    """Compare an answer with the page's, binding `{name}` strings (see the module's doc)."""
    if expected == ANY:
        return
    if isinstance(expected, str) and (whole := re.fullmatch(NAME, expected)) is not None:
        name = whole.group(1)
        if name not in values:
            if not isinstance(actual, str):
                raise ExampleError(f"{path}: {{{name}}} names a string, the answer has {json.dumps(actual)}")
            values[name] = actual
            return
        expected = values[name]
    elif isinstance(expected, str):
        expected = NAME.sub(lambda m: values.get(m.group(1), m.group(0)), expected)
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            raise ExampleError(f"{path}: the page shows an object, the answer is {json.dumps(actual)}")
        keys = set(expected) - {ANY}
        if ANY not in expected and set(actual) != keys:
            raise ExampleError(f"{path}: the keys differ: page {sorted(keys)}, answer {sorted(actual)}")
        for key in sorted(keys):
            if key not in actual:
                raise ExampleError(f"{path}: the answer has no {key!r}")
            match(expected[key], actual[key], values, f"{path}.{key}")
        return
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            raise ExampleError(f"{path}: the page shows {len(expected)} elements, the answer {json.dumps(actual)}")
        for index, (one, other) in enumerate(zip(expected, actual, strict=True)):
            match(one, other, values, f"{path}[{index}]")
        return
    if expected != actual or type(expected) is not type(actual):
        raise ExampleError(f"{path}: the page shows {json.dumps(expected)}, the answer {json.dumps(actual)}")
