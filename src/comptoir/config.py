"""Settings, read once from the environment (prefix COMPTOIR_) and passed down.

README.md "Configuration" lists the variables; names and defaults are a contract.
"""

from __future__ import annotations

import ipaddress
import os
import re
import resource
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

KEY_FILE_NAME = "comptoir-secret.key"
# docs/operations.md "Server key": on PostgreSQL every process is given the key, this long at least.
MIN_SECRET_KEY_BYTES = 32

_METRICS_PATH = re.compile(r"/[A-Za-z0-9_.\-/]{1,100}")

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(text: str, name: str = "COMPTOIR_CALLBACK_ALLOWED_NETWORKS") -> tuple[IPNetwork, ...]:
    """COMPTOIR_CALLBACK_ALLOWED_NETWORKS, COMPTOIR_METRICS_ALLOWED_NETWORKS (`name`):
    comma-separated CIDR networks (host bits allowed)."""
    networks: list[IPNetwork] = []
    for entry in text.split(","):
        entry = entry.strip()
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"{name}: {entry!r} is not a CIDR network") from None
    return tuple(networks)


def parse_forwarded_allow_ips(text: str) -> tuple[IPNetwork, ...]:
    """COMPTOIR_FORWARDED_ALLOW_IPS: comma-separated addresses and CIDR networks of trusted
    proxies; `*` trusts every peer (docs/operations.md "Behind a proxy")."""
    networks: list[IPNetwork] = []
    for entry in text.split(","):
        entry = entry.strip()
        if not entry:
            continue
        if entry == "*":
            networks += [ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")]
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(
                f"COMPTOIR_FORWARDED_ALLOW_IPS: {entry!r} is not an IP address, a CIDR network or *"
            ) from None
    return tuple(networks)


def connections_for_file_limit(soft_limit: int) -> int:
    """The default connection cap for a file limit: a tenth of it (at least 64 files) is kept
    for the database pool, Redis, logs and files; an unlimited limit counts as 65536."""
    files = 65536 if soft_limit == resource.RLIM_INFINITY or soft_limit <= 0 else soft_limit
    return max(1, files - max(64, files // 10))


class ServerKeyError(RuntimeError):
    """The server key is missing or too short where it must be given (`server_key_problem`)."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="COMPTOIR_", extra="ignore")

    database_url: str = "sqlite:///./comptoir.db"
    redis_url: str | None = None
    secret_key: str | None = Field(default=None, repr=False)
    # `comptoir rotate-key` only: the server key to accept next (docs/operations.md "Server key")
    new_secret_key: str | None = Field(default=None, repr=False)
    callback_retry_base_seconds: float = 60
    callback_timeout_seconds: float = 20
    # a callback whose every attempt failed for this long is disabled (docs/operations.md)
    callback_disable_after_seconds: float = Field(default=5 * 24 * 3600, gt=0)
    # Networks callback URLs may reach although not public, e.g. "127.0.0.0/8,::1/128".
    callback_allowed_networks: str = ""
    # a stream whose client takes longer than this to take one message is closed
    # (docs/api/callbacks-events.md "Stream")
    callback_stream_send_timeout_seconds: float = Field(default=30, gt=0)
    rate_limits: Literal["on", "off"] = "on"
    # Beyond the contract: the back office's request log (docs/operations.md "Request log"),
    # on unless "off".
    request_logs: Literal["on", "off"] = "on"
    # Beyond the contract: prefix of Redis keys (tests isolate runs with it), log format.
    redis_prefix: str = "comptoir:"
    log_format: Literal["logfmt", "json"] = "logfmt"
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    timed_jobs_interval_seconds: float = 1.0
    run_worker: bool = True  # `serve --no-worker` sets COMPTOIR_RUN_WORKER=0
    # Beyond the contract: the largest request body in bytes (a 413 beyond, refused before it
    # is read, http/inputs.py); a catalog's creation or replacement, and an inventory, may be larger.
    max_body_bytes: int = Field(default=2 * 1024 * 1024, ge=1024)
    max_catalog_body_bytes: int = Field(default=32 * 1024 * 1024, ge=1024)
    # Beyond the contract: slow clients (docs/operations.md "Slow clients and connections").
    # A request's headers must be complete within header_timeout_seconds of its first byte
    # (of the connection, for a first request); its body may pause at most
    # body_timeout_seconds, and after that grace must average body_min_bytes_per_second.
    header_timeout_seconds: float = Field(default=10, gt=0)
    body_timeout_seconds: float = Field(default=10, gt=0)
    body_min_bytes_per_second: int = Field(default=1024, ge=1)
    # Open connections per process beyond which a new one is answered 503; unset: the
    # process's file limit (`ulimit -n`) less a tenth kept for the database, logs and files.
    max_connections: int | None = Field(default=None, ge=1)
    # docs/operations.md "Images": unset, image bytes live in the database; set, in files under
    # this directory (absolute, existing, writable by the process).
    image_directory: Path | None = None
    # Which store new images go to: `auto` is the files when the directory is set; `database`
    # keeps the directory for reading the files left there (going back, docs/operations.md "Images").
    image_store: Literal["auto", "database", "filesystem"] = "auto"
    # Beyond the contract: behind a reverse proxy (docs/operations.md "Behind a proxy"). The
    # proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (none by default), and
    # whether cookies are always `Secure` or only on https requests.
    forwarded_allow_ips: str = ""
    secure_cookies: Literal["auto", "always"] = "auto"
    # Beyond the contract: the base URL clients reach Comptoir at, e.g. https://hub.example.com
    # (docs/operations.md "Public URL"): the OAuth metadata's addresses are built on it, never
    # on a request's Host. Unset: only a request to a loopback Host gets them (development).
    public_url: str | None = None
    # Beyond the contract: how long rows are kept (docs/operations.md "Retention"), in days; a
    # fraction of a day is allowed (0.5 is 12 hours).
    request_log_retention_days: float = Field(default=7, gt=0, le=36500, allow_inf_nan=False)
    delivery_log_retention_days: float = Field(default=30, gt=0, le=36500, allow_inf_nan=False)
    event_retention_days: float = Field(default=30, gt=0, le=36500, allow_inf_nan=False)
    # Beyond the contract: database connections per process (docs/operations.md "Database
    # pool"): SQLAlchemy's pool on PostgreSQL (kept open, and opened beyond it when busy, closed
    # when given back), and the direct driver's pool of hot statements.
    database_pool_size: int = Field(default=10, ge=1, le=1000)
    database_max_overflow: int = Field(default=10, ge=0, le=1000)
    database_direct_pool_size: int = Field(default=10, ge=1, le=1000)
    # Beyond the contract: how long a request may wait on a dependency before it is answered
    # 503 (docs/operations.md "When a dependency fails"), in seconds: opening a database
    # connection, waiting for a free one in a pool, one statement (PostgreSQL's
    # statement_timeout, and on SQLite the wait for the write lock), one Redis command.
    database_connect_timeout_seconds: float = Field(default=2, gt=0, le=600, allow_inf_nan=False)
    database_pool_timeout_seconds: float = Field(default=2, gt=0, le=600, allow_inf_nan=False)
    database_statement_timeout_seconds: float = Field(default=3, gt=0, le=3600, allow_inf_nan=False)
    redis_timeout_seconds: float = Field(default=1, gt=0, le=60, allow_inf_nan=False)
    # Beyond the contract: entries of each kind the connection cache keeps (docs/operations.md
    # "Connection cache"); beyond it that kind starts afresh.
    connection_cache_size: int = Field(default=10_000, ge=1, le=10_000_000)
    # Beyond the contract: Prometheus metrics (docs/operations.md "Metrics"): the path they are
    # served at ("off" or empty: not served), and the networks whose clients may read them
    # (empty: any client that reaches the port).
    metrics_path: str = "/metrics"
    metrics_allowed_networks: str = ""

    @field_validator("redis_url", "secret_key", "new_secret_key", "max_connections", "image_directory", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("database_url")
    @classmethod
    def _supported_database(cls, value: str) -> str:
        if not value.startswith(("sqlite:", "sqlite+", "postgresql:", "postgresql+", "postgres:")):
            raise ValueError("COMPTOIR_DATABASE_URL must be a sqlite:/// or postgresql:// URL")
        return value

    @field_validator("callback_allowed_networks", "metrics_allowed_networks")
    @classmethod
    def _networks(cls, value: str, info: ValidationInfo) -> str:
        parse_networks(value, f"COMPTOIR_{(info.field_name or '').upper()}")  # raises ValueError naming the bad entry
        return value

    @field_validator("forwarded_allow_ips")
    @classmethod
    def _proxies(cls, value: str) -> str:
        parse_forwarded_allow_ips(value)  # raises ValueError naming the bad entry
        return value

    @field_validator("public_url", mode="before")
    @classmethod
    def _public_url(cls, value: object) -> object:
        """An absolute http(s) URL naming a host (a port and a path allowed), without user
        information, query, fragment, space, control character or backslash; kept with its
        scheme and host in lower case and without its trailing slash."""
        from urllib.parse import urlsplit

        if value is None or value == "":
            return None
        text = str(value)
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 - raises for a port out of range or not a number
        except ValueError:
            parts = None
        if (
            parts is None
            or parts.scheme not in ("http", "https")
            or not parts.hostname
            or "@" in parts.netloc
            or any(c in text for c in "?#\\")
            or any(c.isspace() or not c.isprintable() for c in text)
        ):
            raise ValueError(
                "COMPTOIR_PUBLIC_URL must be an absolute http or https URL with a host and without user,"
                f" query or fragment, such as https://hub.example.com (got {text!r})"
            )
        return f"{parts.scheme}://{parts.netloc.lower()}{parts.path}".rstrip("/")

    @property
    def trusted_proxies(self) -> tuple[IPNetwork, ...]:
        return parse_forwarded_allow_ips(self.forwarded_allow_ips)

    def retention(self, kind: Literal["request_log", "delivery_log", "event"]) -> timedelta:
        """How long rows of `kind` are kept (docs/operations.md "Retention")."""
        days = {
            "request_log": self.request_log_retention_days,
            "delivery_log": self.delivery_log_retention_days,
            "event": self.event_retention_days,
        }[kind]
        return timedelta(days=days)

    @field_validator("metrics_path")
    @classmethod
    def _metrics_path(cls, value: str) -> str:
        value = value.strip()
        if value in ("", "off"):
            return ""
        if not _METRICS_PATH.fullmatch(value) or value == "/v1" or value.startswith(("/v1/", "/oauth2/")):
            raise ValueError("COMPTOIR_METRICS_PATH must be a path like /metrics, outside /v1 and /oauth2")
        return value.rstrip("/") or "/metrics"

    @property
    def callback_networks(self) -> tuple[IPNetwork, ...]:
        return parse_networks(self.callback_allowed_networks)

    @property
    def metrics_networks(self) -> tuple[IPNetwork, ...]:
        return parse_networks(self.metrics_allowed_networks, "COMPTOIR_METRICS_ALLOWED_NETWORKS")

    @property
    def connection_cap(self) -> int:
        """COMPTOIR_MAX_CONNECTIONS, or what the file limit leaves room for."""
        if self.max_connections is not None:
            return self.max_connections
        return connections_for_file_limit(resource.getrlimit(resource.RLIMIT_NOFILE)[0])

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def sqlite_path(self) -> Path | None:
        if not self.is_sqlite:
            return None
        path = self.database_url.split(":///", 1)[1] if ":///" in self.database_url else ""
        if not path or path == ":memory:":
            return None
        return Path(path.split("?", 1)[0])

    def key_file(self) -> Path:
        """Where the server key lives on SQLite when COMPTOIR_SECRET_KEY is unset: beside the
        SQLite file, or in the working directory for a database in memory."""
        path = self.sqlite_path
        return (path.parent if path is not None else Path(".")) / KEY_FILE_NAME

    def server_key_problem(self) -> str | None:
        """Why this process may not start with its server key, or None. docs/operations.md
        "Server key": on PostgreSQL processes run in many places (directories, containers,
        hosts) and must all share one key, so it is given, never made by a process on its own;
        on SQLite the key file beside the database serves, and a given key of any length too."""
        if self.is_sqlite:
            return None
        if not self.secret_key:
            return (
                "COMPTOIR_SECRET_KEY is not set: on PostgreSQL every process must be given the same"
                " server key; make one with `comptoir secret-key`"
            )
        return self.key_length_problem("COMPTOIR_SECRET_KEY", self.secret_key)

    def key_length_problem(self, name: str, key: str, *, new: bool = False) -> str | None:
        """Why `key`, given as the variable `name`, is too short to be a server key, or None:
        a `new` key (the one `rotate-key` accepts) has at least MIN_SECRET_KEY_BYTES bytes on
        both databases, the current key too on PostgreSQL, while on SQLite a current key of
        any length keeps working (docs/operations.md "Server key")."""
        if new and len(key.encode()) < MIN_SECRET_KEY_BYTES:
            return (
                f"{name} is too short: a new server key must be at least {MIN_SECRET_KEY_BYTES}"
                " bytes; make one with `comptoir secret-key`"
            )
        if not self.is_sqlite and len(key.encode()) < MIN_SECRET_KEY_BYTES:
            return (
                f"{name} is too short: on PostgreSQL it must be at least {MIN_SECRET_KEY_BYTES}"
                " bytes; make one with `comptoir secret-key`"
            )
        return None

    def image_directory_problem(self) -> str | None:
        """Why COMPTOIR_IMAGE_DIRECTORY may not serve, or None (docs/operations.md "Images"):
        every command refuses to start rather than fail on the first upload."""
        directory = self.image_directory
        if directory is None:
            if self.image_store == "filesystem":
                return "COMPTOIR_IMAGE_STORE=filesystem needs COMPTOIR_IMAGE_DIRECTORY: the directory of the files"
            return None
        if not directory.is_absolute():
            return f"COMPTOIR_IMAGE_DIRECTORY must be an absolute path, not {str(directory)!r}"
        if not directory.is_dir():
            return f"COMPTOIR_IMAGE_DIRECTORY: {directory} is not an existing directory; create it (mode 0700)"
        probe = directory / f".comptoir-probe-{os.getpid()}-{secrets.token_hex(4)}"  # a real write
        try:
            os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            probe.unlink()
        except OSError as exc:
            return f"COMPTOIR_IMAGE_DIRECTORY: {directory} is not writable by this process ({exc.strerror})"
        return None

    @property
    def images_to_files(self) -> bool:
        """Whether new images' bytes are written as files (docs/operations.md "Images")."""
        return self.image_directory is not None and self.image_store != "database"

    def server_key(self) -> bytes:
        """The key tokens and client secrets are derived from; on SQLite without
        COMPTOIR_SECRET_KEY, creates the key file once. Raises ServerKeyError when
        `server_key_problem` names one."""
        problem = self.server_key_problem()
        if problem is not None:
            raise ServerKeyError(problem)
        if self.secret_key:
            return self.secret_key.encode()
        key_file = self.key_file()
        try:
            return key_file.read_text(encoding="ascii").strip().encode()
        except FileNotFoundError:
            pass
        key_file.parent.mkdir(parents=True, exist_ok=True)
        # Write a private temporary file, then hard-link it into place: the link either
        # creates the complete key file or fails because another process got there first.
        tmp = key_file.with_name(f".{KEY_FILE_NAME}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(secrets.token_hex(32) + "\n")
        try:
            os.link(tmp, key_file)
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
        return key_file.read_text(encoding="ascii").strip().encode()
