"""Logs are events with context (docs/architecture.md "Logs"): structlog, one line per event on stderr, each
carrying the request id and, once known, the connection id.

Every line of a process is in the format COMPTOIR_LOG_FORMAT names (docs/operations.md "Logs"):
Comptoir's own events, and the lines of the standard `logging` module (uvicorn's, the
libraries'), which `formatter` renders with the same renderer and the same context."""

from __future__ import annotations

import logging
import logging.config
import sys
from typing import Any

import structlog

from comptoir.config import Settings

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


def _renderer(log_format: str) -> Any:
    if log_format == "json":
        return structlog.processors.JSONRenderer()
    return structlog.processors.LogfmtRenderer(key_order=["timestamp", "level", "event"], bool_as_flag=False)


def formatter(log_format: str = "logfmt") -> logging.Formatter:
    """A `logging` formatter writing a record as one of our lines: its message as `event`,
    its level, time and logger, and the context of the request it belongs to."""
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.add_log_level,
            structlog.stdlib.add_logger_name,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
        ],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            _renderer(log_format),
        ],
    )


def logging_config(settings: Settings) -> dict[str, Any]:
    """The `logging` configuration of a process (`uvicorn.run(log_config=...)` applies it in
    each worker too): one stderr handler at the root, rendering as `formatter`; uvicorn's
    loggers hand their lines to it."""
    level = _LEVELS[settings.log_level]
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"comptoir": {"()": "comptoir.core.logs.formatter", "log_format": settings.log_format}},
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "comptoir", "stream": "ext://sys.stderr"}
        },
        "root": {"handlers": ["stderr"], "level": max(level, logging.WARNING)},
        "loggers": {
            "uvicorn": {"handlers": [], "propagate": True, "level": level},
            "uvicorn.error": {"handlers": [], "propagate": True, "level": level},
            # each request has Comptoir's own line (http/middleware.py `access_log`)
            "uvicorn.access": {"handlers": [], "propagate": False},
        },
    }


def configure_logging(settings: Settings) -> None:
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            _renderer(settings.log_format),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS[settings.log_level]),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    logging.config.dictConfig(logging_config(settings))
    logging.captureWarnings(True)  # Python's warnings become lines of the same format
