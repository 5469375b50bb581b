"""Write clients/python/src/comptoir_client/models.py from the server's OpenAPI document, and
async_resources.py from resources.py.

    uv run python scripts/generate_client_models.py

The client's request and response models are generated from the document the server
publishes at /v1/openapi.json (built here from the app, without a database), so they cannot
drift from the server's schemas: run it after changing a `schemas.py`;
clients/python/tests/test_models_drift.py fails until the committed file matches.
The output is deterministic: no timestamp, sorted JSON input, one formatter.

async_resources.py is resources.py for asyncio: each method that calls `self._run` becomes
`async` and awaits it, lists return an AsyncPaginator, the event stream an AsyncEventStream.
The same test checks it is current.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

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


def generate() -> str:
    """The text of models.py for the current server code."""
    with tempfile.TemporaryDirectory() as directory:
        source, target = Path(directory) / "openapi.json", Path(directory) / "models.py"
        source.write_text(json.dumps(openapi_document(), sort_keys=True, indent=1))
        command = [
            *(sys.executable, "-m", "datamodel_code_generator"),
            *("--input", str(source), "--input-file-type", "openapi", "--output", str(target)),
            *("--output-model-type", "pydantic_v2.BaseModel", "--target-python-version", "3.11"),
            *("--extra-fields", "ignore", "--disable-timestamp", "--use-annotated", "--field-constraints"),
            *("--use-standard-collections", "--use-union-operator", "--use-double-quotes"),
            *("--use-schema-description", "--enum-field-as-literal", "all", "--formatters", "builtin"),
            *("--type-mappings", "email=string"),
            *("--custom-file-header", HEADER),
        ]
        subprocess.run(command, check=True, capture_output=True, text=True)  # noqa: S603 - our own arguments
        return styled(target.read_text(), MODELS)


def generate_async_resources() -> str:
    """async_resources.py, from resources.py."""
    source = RESOURCES.read_text()
    _, _, rest = source.partition('"""\n\n')  # the module docstring, replaced
    out = [
        '"""Every resource of the `/v1` API for the asyncio client: generated from resources.py by\n'
        'scripts/generate_client_models.py, do not edit by hand (see resources.py)."""\n\n'
    ]
    blocks = re.split(r"(?m)^(?=    def |class |def )", rest)
    for block in blocks:
        body = block.split(":\n", 1)[-1]
        if block.startswith("    def ") and ("self._run(" in body or "self._t.run(" in body):
            block = "    async def " + block[len("    def ") :]
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


if __name__ == "__main__":
    MODELS.write_text(generate())
    ASYNC_RESOURCES.write_text(generate_async_resources())
