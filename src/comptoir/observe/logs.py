"""Logs are events with context (docs/architecture.md "Logs"): structlog, one line per event on stderr, each
carrying the request id and, once known, the connection id.

Every line of a process is in the format COMPTOIR_LOG_FORMAT names (docs/operations.md "Logs"):
Comptoir's own events, and the lines of the standard `logging` module (uvicorn's, the
libraries'), which `formatter` renders with the same renderer and the same context."""

from __future__ import annotations

import logging
import logging.config
import re
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog

from comptoir.config import Settings

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


_KEY_ORDER = ("timestamp", "level", "event")
_PLAIN = re.compile(r'[ ="\n]')  # a value holding none of these is written as it is


class Logfmt:
    """structlog's `LogfmtRenderer(key_order=_KEY_ORDER, bool_as_flag=False)`, line for line
    (tests/unit/test_logs.py compares them), in about a third of its time: a value that needs
    no quoting or escaping, as nearly all do, is found by one regular expression search instead
    of four scans, and each key is checked once per process, not once per line. Every line of
    a process goes through it: the access line of each request most of all."""

    __slots__ = ("_keys",)

    def __init__(self) -> None:
        self._keys: set[str] = set()

    def __call__(self, _logger: Any, _method: str, event_dict: MutableMapping[str, Any]) -> str:
        elements: list[str] = []
        append = elements.append
        items = [(key, event_dict.pop(key, None)) for key in _KEY_ORDER]
        items += event_dict.items()
        keys = self._keys
        for key, value in items:
            if key not in keys:
                if any(c <= " " for c in key):
                    raise ValueError(f'Invalid key: "{key}"')
                if len(keys) < 10_000:  # keys are the code's own: a few hundred
                    keys.add(key)
            if value is None:
                append(key + "=")
                continue
            if value is True or value is False:
                value = "true" if value else "false"
            elif type(value) is not str:
                value = str(value)
            if _PLAIN.search(value) is None:
                append(key + "=" + value)
                continue
            quoted = " " in value or "=" in value or '"' in value
            if quoted and "\\" in value:
                value = value.replace("\\", "\\\\")
            value = value.replace('"', '\\"').replace("\n", "\\n")
            append(f'{key}="{value}"' if quoted else f"{key}={value}")
        return " ".join(elements)


def _renderer(log_format: str) -> Any:
    if log_format == "json":
        return structlog.processors.JSONRenderer()
    return Logfmt()


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
        "formatters": {"comptoir": {"()": "comptoir.observe.logs.formatter", "log_format": settings.log_format}},
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
        # one write(2) a line (PrintLogger writes the line, then its newline)
        logger_factory=structlog.WriteLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    logging.config.dictConfig(logging_config(settings))
    logging.captureWarnings(True)  # Python's warnings become lines of the same format
