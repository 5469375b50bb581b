"""The base URL of the absolute OAuth addresses Comptoir gives out, those of the metadata
document (docs/operations.md "Public URL"): the one function that builds them, so that no such
address is made of what a client wrote in its `Host` header. (The authorisation pages link
with relative addresses.)

COMPTOIR_PUBLIC_URL when it is set. Otherwise, for development on one machine, the request's
own scheme, host and port, but only when its `Host` is a loopback name (`localhost`,
`127.0.0.0/8`, `[::1]`, with or without a port): an attacker's `Host: evil.example` never
becomes an address. Any other request gets None, and the caller answers without addresses.
"""

from __future__ import annotations

import ipaddress
import re

from starlette.requests import Request

from comptoir.http.state import app_state

_HOST = re.compile(r"(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+)(?::(?P<port>[0-9]{1,5}))?")


def public_base(request: Request) -> str | None:
    """The base URL (scheme, host, port and any path, no trailing slash) of the absolute
    addresses given to this request, or None when it cannot be known safely."""
    configured = app_state(request).settings.public_url
    if configured is not None:
        return configured
    host = loopback_host(request.headers.get("host", ""))
    # the scheme is the request's: behind a trusted proxy, the one it forwards (http/forwarded.py)
    return None if host is None else f"{request.url.scheme}://{host}"


def loopback_host(value: str) -> str | None:
    """`value` (a `Host` header) in lower case when it names this machine's loopback
    interface, with a port from 1 to 65535 if any; else None."""
    found = _HOST.fullmatch(value)
    if found is None:
        return None
    name, port = found["name"].lower(), found["port"]
    if port is not None and not 0 < int(port) < 65536:
        return None
    if name != "localhost":
        try:
            address = ipaddress.ip_address(name[1:-1] if name.startswith("[") else name)
        except ValueError:
            return None
        if not address.is_loopback or (isinstance(address, ipaddress.IPv6Address) != name.startswith("[")):
            return None
    return name if port is None else f"{name}:{port}"
