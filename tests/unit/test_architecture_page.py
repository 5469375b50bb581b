"""docs/architecture.md is read as a contract: its table of the feature packages' files names
exactly the files each package holds."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "comptoir"


def documented_files() -> dict[str, set[str]]:
    page = (ROOT / "docs" / "architecture.md").read_text()
    table = page[page.index("| package | files besides `__init__.py` |") :].split("\n\n")[0]
    found: dict[str, set[str]] = {}
    for row in table.splitlines()[2:]:
        package, files = row.strip("|").split("|", 1)
        names = re.findall(r"`([\w./]+)`", files)
        found[package.strip().strip("`")] = {name.rstrip("/") for name in names}
    return found


def test_the_feature_table_names_exactly_the_files_of_each_package() -> None:
    documented = documented_files()
    assert len(documented) == 13
    for package, files in documented.items():
        present = {path.name for path in (SRC / package).iterdir() if path.name not in {"__init__.py", "__pycache__"}}
        assert (package, files) == (package, present)
