"""Image bytes as files under COMPTOIR_IMAGE_DIRECTORY: `images.ImageStore` on a filesystem
(docs/operations.md "Images").

A file's path is made of the image's internal id and the MD5 the server computed, never of
anything a client sent: `<directory>/<id % 256, 2 hex digits>/<id>-<md5>`. A file is written
whole or not at all (a private temporary file, fsync, rename, fsync of its directory);
directories are made 0700 and files 0600. Every call of the disk runs in a thread.

Files are not transactional: an upload writes its file before its row commits (a rolled-back
upload leaves a file no row names), and a file is removed only once the row that named it is
committed gone. `listing` and `remove` serve the sweep that removes files no row names
(`images.sweep_files`).
"""

from __future__ import annotations

import asyncio
import errno
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from sqlalchemy.ext.asyncio import AsyncSession

_NAME = re.compile(r"([1-9][0-9]{0,18})-([0-9a-f]{32})")
TEMPORARY_PREFIX = ".tmp-"
_FLAGS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class ImageKey(NamedTuple):
    """What names an image's bytes in every store: its internal id and its MD5."""

    id: int
    md5: str


@dataclass(frozen=True, slots=True)
class StoredFile:
    """A file found by `listing`: its key (None: a temporary or unknown file) and its age."""

    path: Path
    key: ImageKey | None
    mtime: float


class FilesystemImageStore:
    name = "filesystem"

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, key: ImageKey) -> Path:
        if key.id <= 0 or not _NAME.fullmatch(f"{key.id}-{key.md5}"):  # internal values only
            raise ValueError(f"not an image key: {key!r}")
        return self.directory / f"{key.id % 256:02x}" / f"{key.id}-{key.md5}"

    async def put(self, _session: AsyncSession | None, key: ImageKey, data: bytes) -> None:
        await asyncio.to_thread(_write, self.path(key), data)

    async def get(self, _session: AsyncSession | None, key: ImageKey) -> bytes | None:
        return await asyncio.to_thread(_read, self.path(key))

    async def delete(self, _session: AsyncSession | None, keys: list[ImageKey]) -> None:
        """Removes the files at once: called once the rows are committed gone."""
        await self.remove([self.path(key) for key in keys])

    async def remove(self, paths: list[Path]) -> None:
        if paths:
            await asyncio.to_thread(_unlink_all, paths)

    async def listing(self) -> list[StoredFile]:
        """Every file of the store's shard directories."""
        return await asyncio.to_thread(_list, self.directory)


def _write(path: Path, data: bytes) -> None:
    shard = path.parent
    shard.mkdir(mode=0o700, exist_ok=True)
    temporary = shard / f"{TEMPORARY_PREFIX}{path.name}-{secrets.token_hex(6)}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FLAGS, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    directory = os.open(shard, os.O_RDONLY)
    try:
        os.fsync(directory)  # the rename itself survives a crash
    finally:
        os.close(directory)


def _read(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | _FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a link planted in its place is never followed
            return None
        raise
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _unlink_all(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def _list(directory: Path) -> list[StoredFile]:
    found = []
    for shard in directory.iterdir():
        if not (len(shard.name) == 2 and shard.is_dir() and not shard.is_symlink()):
            continue
        for entry in os.scandir(shard):
            if not entry.is_file(follow_symlinks=False):
                continue
            match = _NAME.fullmatch(entry.name)
            key = ImageKey(int(match.group(1)), match.group(2)) if match else None
            found.append(StoredFile(Path(entry.path), key, entry.stat(follow_symlinks=False).st_mtime))
    return found
