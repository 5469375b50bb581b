"""The `comptoir` command (docs/operations.md)."""

from comptoir.cli import (
    callback_commands,  # noqa: F401  (registers its admin commands on `admin`)
    image_commands,  # noqa: F401  (registers the `images` group)
    key_commands,  # noqa: F401  (registers `rotate-key`)
    ops_commands,  # noqa: F401  (registers `backup`)
    sandbox_commands,  # noqa: F401  (registers `sandbox`)
)
from comptoir.cli.commands import main

__all__ = ["main"]
