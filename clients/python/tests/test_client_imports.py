"""`comptoir_client` imports its names when first used (its `__init__`): loading the package,
as pytest loads its plugin in every process, imports neither httpx nor pydantic; every name
it exports is found, and what type checkers are told is where the names are found."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import comptoir_client

INIT = Path(comptoir_client.__file__)


def test_loading_the_package_and_its_pytest_plugin_imports_no_dependency() -> None:
    code = "import sys, comptoir_client.pytest_plugin; print(sorted({'httpx', 'pydantic'} & set(sys.modules)))"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


def test_every_exported_name_is_found() -> None:
    code = "import comptoir_client as c; print([n for n in c.__all__ if getattr(c, n, None) is None])"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError) as raised:
        comptoir_client.NoSuchThing  # noqa: B018
    assert str(raised.value) == "module 'comptoir_client' has no attribute 'NoSuchThing'"


def test_type_checkers_are_told_where_each_name_is_found() -> None:
    tree = ast.parse(INIT.read_text())
    told: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom)
                assert statement.module is not None
                for alias in statement.names:
                    told[alias.name] = (
                        f"{statement.module}.{alias.name}"
                        if statement.module == "comptoir_client"
                        else statement.module
                    )
    assert told == comptoir_client._LAZY
    assert sorted(told) == sorted(comptoir_client.__all__)
