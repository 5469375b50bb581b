"""The `comptoir` command (docs/operations.md)."""

from comptoir.cli.commands import main

__all__ = ["main"]
