"""The package as a new user gets it (README "Install"): `uv build` makes a wheel and an sdist,
and the wheel installs into a fresh environment where `import comptoir_client` and
`comptoir-listen` work. The fresh environment sees this one's httpx and pydantic (a `.pth`
file), so nothing is downloaded; the package itself comes from the wheel only."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

import comptoir_client

PROJECT = Path(__file__).resolve().parents[1]
UV = shutil.which("uv")
pytestmark = pytest.mark.skipif(UV is None, reason="uv builds the package")


def run(*command: str, cwd: Path | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    run(str(UV), "build", "--quiet", "--out-dir", str(out), cwd=PROJECT)
    return out


@pytest.fixture(scope="module")
def fresh(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the wheel installed, and this one's dependencies beside."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    run(str(UV), "venv", "--quiet", "--python", sys.executable, str(venv))
    python = venv / "bin" / "python"
    purelib = run(str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    (Path(purelib) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    wheel = next(built.glob("*.whl"))
    run(str(UV), "pip", "install", "--quiet", "--no-deps", "--offline", "--python", str(python), str(wheel))
    return venv


def test_the_build_names_the_wheel_and_sdist_by_the_version(built: Path) -> None:
    version = comptoir_client.__version__

    assert sorted(path.name for path in built.iterdir() if not path.name.startswith(".")) == [
        f"comptoir_client-{version}-py3-none-any.whl",
        f"comptoir_client-{version}.tar.gz",
    ]


def test_the_sdist_holds_the_readme_changelog_license_and_typing_marker(built: Path) -> None:
    with tarfile.open(next(built.glob("*.tar.gz"))) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}

    assert {"README.md", "CHANGELOG.md", "LICENSE", "src/comptoir_client/py.typed"} <= names
    assert not any(name.startswith("tests/") for name in names)


def test_the_wheel_holds_the_typing_marker(built: Path) -> None:
    with zipfile.ZipFile(next(built.glob("*.whl"))) as wheel:
        assert "comptoir_client/py.typed" in wheel.namelist()


def test_the_license_shipped_is_the_repository_s() -> None:
    assert (PROJECT / "LICENSE").read_text() == (PROJECT.parents[1] / "LICENSE").read_text()


def test_the_installed_wheel_imports_with_its_version_in_its_metadata(fresh: Path) -> None:
    code = (
        "import importlib.metadata, comptoir_client; "
        "print(importlib.metadata.version('comptoir-client'), comptoir_client.__version__, comptoir_client.__file__)"
    )
    metadata, version, location = run(str(fresh / "bin" / "python"), "-c", code).split()

    assert (metadata, version) == (comptoir_client.__version__, comptoir_client.__version__)
    assert Path(location).is_relative_to(fresh)


def test_the_installed_wheel_has_comptoir_listen(fresh: Path) -> None:
    usage = run(str(fresh / "bin" / "comptoir-listen"), "--help")

    assert usage.startswith("usage: comptoir-listen")
