"""Write clients/python/src/comptoir_client/models.py from the server's OpenAPI document, and
async_resources.py from resources.py.

    uv run python scripts/generate_client_models.py

The client's request and response models are generated from the document the server
publishes at /v1/openapi.json (built here from the app, without a database), so they cannot
drift from the server's schemas: run it after changing a `schemas.py`;
clients/python/tests/test_client_models.py fails until the committed file matches.
The output is deterministic: no timestamp, sorted JSON input, one formatter.

What a person writes, rather than what a generator numbers:
- a field of a string (or number) schema is typed `str` (`float`...), its constraints in an
  `Annotated` alias, never a RootModel wrapper: `item.customer_notes == "hi"`;
- a model has the name in NAMES when the server's own (`ItemIn`, `ItemOut`: its Python
  classes) is not one to write; every generated model name is checked against the rule (no
  `In`/`Out` suffix, no number), so a new schema gets a name here before it ships;
- a rule between fields (OpeningHoursUpdate's "at least one day", OrderAcceptanceUpdate's keys
  of each mode) stays the server's, which answers a 422 naming it: the model keeps the fields,
  not one numbered variant per case;
- the names of 0.1 still work for one version, with a DeprecationWarning (RENAMED).

async_resources.py is resources.py for asyncio: each method that calls `self._run` becomes
`async` (its `@overload` signatures too) and awaits it, lists return an AsyncPaginator, the
event stream an AsyncEventStream.
The same test checks it is current.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from comptoir.app import create_app
from comptoir.config import Settings

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "clients" / "python" / "src" / "comptoir_client"
MODELS = PACKAGE / "models.py"
RESOURCES, ASYNC_RESOURCES = PACKAGE / "resources.py", PACKAGE / "async_resources.py"
HEADER = (
    '"""Comptoir\'s request and response models, generated from the server\'s /v1/openapi.json by\n'
    "scripts/generate_client_models.py: do not edit by hand.\n\n"
    "Read models ignore fields they do not know, so a client keeps working when the server adds one.\n"
    '"""'
)


# the server's name -> the client's: the shape written (in an order's body) takes the plain
# name, the shape read (in an Order) the same with `Read`; the order's own charge, discount,
# deal and loyalty operation say `Order`, the catalog's having the plain words
NAMES = {
    "ItemIn": "Item",
    "ItemOut": "ItemRead",
    "OptionIn": "ItemOption",
    "OptionOut": "ItemOptionRead",
    "DealLineIn": "DealLine",
    "DealLineOut": "DealLineRead",
    "PaymentIn": "Payment",
    "PaymentOut": "PaymentRead",
    "ChargeIn": "OrderCharge",
    "ChargeOut": "OrderChargeRead",
    "DiscountIn": "OrderDiscount",
    "DiscountOut": "OrderDiscountRead",
    "DealIn": "OrderDeal",
    "DealOut": "OrderDealRead",
    "LoyaltyOperationIn": "OrderLoyaltyOperation",
    "LoyaltyOperationOut": "OrderLoyaltyOperationRead",
    "SlotOut": "SlotRead",
}
# 0.1's names, kept in 0.2 with a DeprecationWarning (clients/python/CHANGELOG.md)
RENAMED = {
    **NAMES,
    **{f"OrderAcceptanceUpdate{n}": "OrderAcceptanceUpdate" for n in range(1, 4)},
    **{f"OpeningHoursUpdate{n}": "OpeningHoursUpdate" for n in range(1, 8)},
}
GENERATED_NAME = re.compile(r"(?m)^class (\w+)\(")
NOT_A_NAME = re.compile(r"(In|Out|\d)$")
DEPRECATED_NAMES = """

# The names of comptoir-client 0.1, kept for 0.2 only (CHANGELOG.md): each still works, with a
# DeprecationWarning; type checkers see the new names only.
_RENAMED = {renamed}

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        new = _RENAMED.get(name)
        if new is None:
            raise AttributeError(f"module {{__name__!r}} has no attribute {{name!r}}")
        message = f"comptoir_client.models.{{name}} is {{new}} since 0.2; {{name}} goes in 0.3"
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return globals()[new]
"""


def openapi_document() -> dict[str, object]:
    """The document the server publishes, built from the app's routes."""
    with tempfile.TemporaryDirectory() as directory:
        settings = Settings(database_url=f"sqlite:///{directory}/unused.db", secret_key="unused")  # noqa: S106 - no token is made
        return create_app(settings, background=False).openapi()


def styled(text: str, path: Path) -> str:
    """`text` as ruff fixes and formats it at `path` (the repository's ruff.toml), so the
    committed file passes `ruff check` and `ruff format --check` as it is."""
    for ruff in (("check", "--fix-only", "--quiet", "--exit-zero"), ("format", "--quiet")):
        text = subprocess.run(  # noqa: S603 - our own arguments
            [sys.executable, "-m", "ruff", *ruff, "--stdin-filename", str(path), "-"],
            input=text,
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
    return text


def client_document() -> dict[str, Any]:
    """The server's document without its rules between fields (an `anyOf`/`oneOf` of an object
    schema that has its own `properties`): the client's model has the fields, the server keeps
    the rule (see the module's docstring)."""
    document: dict[str, Any] = copy.deepcopy(openapi_document())
    for schema in document["components"]["schemas"].values():
        if "properties" in schema:
            for rule in ("anyOf", "oneOf"):
                schema.pop(rule, None)
    return document


def generate() -> str:
    """The text of models.py for the current server code."""
    with tempfile.TemporaryDirectory() as directory:
        source, target = Path(directory) / "openapi.json", Path(directory) / "models.py"
        names = Path(directory) / "names.json"
        source.write_text(json.dumps(client_document(), sort_keys=True, indent=1))
        names.write_text(json.dumps(NAMES))
        command = [
            *(sys.executable, "-m", "datamodel_code_generator"),
            *("--input", str(source), "--input-file-type", "openapi", "--output", str(target)),
            *("--output-model-type", "pydantic_v2.BaseModel", "--target-python-version", "3.11"),
            *("--extra-fields", "ignore", "--disable-timestamp", "--use-annotated", "--field-constraints"),
            *("--use-standard-collections", "--use-union-operator", "--use-double-quotes"),
            *("--use-schema-description", "--enum-field-as-literal", "all", "--formatters", "builtin"),
            *("--type-mappings", "email=string"),
            # constrained strings and numbers as Annotated aliases, each once
            *("--use-type-alias", "--reuse-model", "--collapse-reuse-models"),
            *("--model-name-map", str(names)),
            *("--custom-file-header", HEADER),
        ]
        subprocess.run(command, check=True, capture_output=True, text=True)  # noqa: S603 - our own arguments
        text = target.read_text()
    classes = set(GENERATED_NAME.findall(text))
    if missing := sorted(set(RENAMED.values()) - classes):
        raise SystemExit(f"NAMES names models the document no longer has: {missing}")
    if unnamed := sorted(name for name in classes if NOT_A_NAME.search(name)):
        raise SystemExit(f"give these models a name in NAMES: {unnamed}")
    text = text.replace("from typing import ", "import warnings\nfrom typing import TYPE_CHECKING, ", 1)
    return styled(text + DEPRECATED_NAMES.format(renamed=json.dumps(RENAMED, indent=4)), MODELS)


def generate_async_resources() -> str:
    """async_resources.py, from resources.py."""
    source = RESOURCES.read_text()
    _, _, rest = source.partition('"""\n\n')  # the module docstring, replaced
    out = [
        '"""Every resource of the `/v1` API for the asyncio client: generated from resources.py by\n'
        'scripts/generate_client_models.py, do not edit by hand (see resources.py)."""\n\n'
    ]
    blocks = re.split(r"(?m)^(?<!@overload\n)(?=    (?:@overload\n    )?def |class |def )", rest)
    # the methods that await a call, by class: their `@overload` signatures become async too
    waiting, owner = set(), ""
    for block in blocks:
        owner = block.split("(", 1)[0] if block.startswith("class ") else owner
        body = block.split(":\n", 1)[-1]
        if block.startswith("    def ") and ("self._run(" in body or "self._t.run(" in body):
            waiting.add((owner, _method(block)))
    for block in blocks:
        owner = block.split("(", 1)[0] if block.startswith("class ") else owner
        if re.match(r"    (@overload\n    )?def ", block) and (owner, _method(block)) in waiting:
            block = block.replace("    def ", "    async def ", 1)
            block = block.replace("return self._run(", "return await self._run(")
            block = block.replace("return self._t.run(", "return await self._t.run(")
        out.append(block)
    text = "".join(out)
    text = text.replace(
        "from comptoir_client._sync import EventStream, Paginator, Transport",
        "from comptoir_client._async import AsyncEventStream, AsyncPaginator, AsyncTransport",
    )
    text = re.sub(r"\bPaginator\b", "AsyncPaginator", text)
    text = re.sub(r"\bEventStream\b", "AsyncEventStream", text)
    text = re.sub(r"\bTransport\b", "AsyncTransport", text)
    text = text.replace("AsyncAsync", "Async")
    return styled(text, ASYNC_RESOURCES)


def _method(block: str) -> str:
    """The name of the method a block of resources.py defines."""
    return block.split("def ", 1)[1].split("(", 1)[0]


if __name__ == "__main__":
    MODELS.write_text(generate())
    ASYNC_RESOURCES.write_text(generate_async_resources())
