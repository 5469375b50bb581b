"""The application each `comptoir serve` process builds (uvicorn's factory).

This module imports nothing heavy itself, so that the application's modules are imported
and the application built inside `gcpause.starting()`, without the cyclic collector
(docs/performance.md "Start-up").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comptoir.kit import gcpause

if TYPE_CHECKING:
    from fastapi import FastAPI


def app_from_environment() -> FastAPI:
    with gcpause.starting():
        from comptoir.app import app_from_environment as build

        return build()
