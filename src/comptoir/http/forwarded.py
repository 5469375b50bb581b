"""The client behind a trusted reverse proxy (docs/operations.md "Behind a proxy").

When the connection's peer is one of COMPTOIR_FORWARDED_ALLOW_IPS, `forwarded` makes the
request's client the address `X-Forwarded-For` names and its scheme the one
`X-Forwarded-Proto` names; from any other peer both headers are ignored. Everything that
reads the client (the access log, the login throttles) or the scheme (`request.url`, the
`Secure` cookie attribute) then sees the forwarded values.

`X-Forwarded-For` is read right to left: each proxy appends the address it was reached
from, so the right-most address that is not itself a trusted proxy is the client. A client
can write anything to the left of what the proxies append, never to the right of it. An
entry that is not an IP address ends the walk: the client is then the last trusted hop.
The RFC 7239 `Forwarded` header is not read: a proxy that sets one family of headers passes
the other on from the client as it came, so honouring both would let clients choose.

`serve` keeps uvicorn's own proxy-headers middleware off: this step runs wherever the app
runs (in process for the tests too), reads the setting with the others, and never makes a
client of an entry that is no address, where uvicorn's would.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from starlette.types import Scope

from comptoir.config import IPNetwork

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# The walk stops this many proxies from the right: no real chain is longer, and a long
# header then costs no more than a short one.
MAX_HOPS = 32
_SCHEMES = {b"http": "http", b"https": "https"}
# What `TrustedProxies.judge` remembers: peers and clients come back, and parsing an address
# costs microseconds where a look-up costs a tenth of one.
_REMEMBERED = 4096
_REMEMBERED_LENGTH = 64
PEER = "comptoir.peer"  # the scope's key for the TCP peer when `client` is a forwarded one


@dataclass(frozen=True, slots=True)
class TrustedProxies:
    """The peers whose forwarding headers are believed (COMPTOIR_FORWARDED_ALLOW_IPS)."""

    networks: tuple[IPNetwork, ...] = ()
    _judged: dict[str, tuple[str | None, bool]] = field(default_factory=dict, compare=False, repr=False)

    def __bool__(self) -> bool:
        return bool(self.networks)

    def judge(self, entry: str) -> tuple[str | None, bool]:
        """An address as written (`parse_address`): its canonical text (None when it is no
        address) and whether it is a trusted proxy's."""
        judged = self._judged.get(entry)
        if judged is None:
            address = parse_address(entry)
            judged = (None, False) if address is None else (str(address), self.trusts(address))
            if len(entry) <= _REMEMBERED_LENGTH:
                if len(self._judged) >= _REMEMBERED:
                    self._judged.clear()
                self._judged[entry] = judged
        return judged

    def trusts(self, address: IPAddress) -> bool:
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)


def parse_address(entry: str) -> IPAddress | None:
    """An `X-Forwarded-For` entry's address: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1` or
    `[2001:db8::1]:5678`; None when it is none of these."""
    entry = entry.strip()
    if entry.startswith("["):
        entry, bracket, port = entry[1:].partition("]")
        if not bracket or (port and not (port[0] == ":" and port[1:].isdigit())):
            return None
    elif entry.count(":") == 1:
        entry, _, port = entry.partition(":")
        if not port.isdigit():
            return None
    try:
        return ipaddress.ip_address(entry)
    except ValueError:
        return None


def forwarded_client(forwarded_for: str, proxies: TrustedProxies) -> str | None:
    """The client an `X-Forwarded-For` value sent by a trusted peer names (the right-most
    address that is not a trusted proxy, else the left-most address), None when its
    right-most entry is no address."""
    client: str | None = None
    for entry in reversed(forwarded_for.rsplit(",", MAX_HOPS)):
        address, trusted = proxies.judge(entry)
        if address is None:
            return client
        client = address
        if not trusted:
            return client
    return client


def peer_of(scope: Scope) -> str | None:
    """The address of the request's TCP peer, whatever a trusted proxy forwarded: what
    network allow lists judge (docs/operations.md "Metrics")."""
    peer = scope.get(PEER) or scope.get("client")
    return peer[0] if peer else None


def forwarded(scope: Scope, proxies: TrustedProxies) -> Scope:
    """The request as the client made it, when its peer is a trusted proxy; else as it is."""
    if not proxies:
        return scope
    peer = scope.get("client")
    if not peer or not proxies.judge(peer[0])[1]:
        return scope
    forwarded_for: list[bytes] = []
    proto: bytes | None = None
    for name, value in scope["headers"]:
        if name == b"x-forwarded-for":
            forwarded_for.append(value)
        elif name == b"x-forwarded-proto":
            proto = value
    changes: dict[str, object] = {}
    if forwarded_for:
        client = forwarded_client(b",".join(forwarded_for).decode("latin-1"), proxies)
        if client is not None:
            changes["client"] = (client, 0)
            changes[PEER] = peer
    scheme = _SCHEMES.get(proto.strip().lower()) if proto is not None else None
    if scheme is not None:
        changes["scheme"] = scheme
    return dict(scope, **changes) if changes else scope
