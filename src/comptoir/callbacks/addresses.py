"""Where a callback may be sent: public addresses only, unless the operator allows a network
(COMPTOIR_CALLBACK_ALLOWED_NETWORKS, e.g. `127.0.0.0/8,::1/128` for local development).

A callback URL is checked twice (docs/api/callbacks-events.md "Allowed addresses"): at
registration, its host as the HTTP client reads it (an IP literal in any spelling the system
resolver accepts: `0x7f000001`, `2130706433`, `0177.0.0.1`, `127.1`, `[::ffff:127.0.0.1]`...,
or a `localhost` name), and any other name resolved then (`name_refusal`: every address must
be allowed, and a name that does not resolve is refused); and at delivery, every address its
name resolves to, by `GuardedResolver`, whose checked addresses are the ones the connection
then uses (the name is not resolved again between the check and the connection).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from typing import Any

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver

from comptoir.config import IPNetwork

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

RESOLVE_SECONDS = 5.0  # a name not resolved by then is refused at registration
NO_ADDRESS = "does not resolve to an address"
_LEGACY_IPV4 = frozenset("0123456789abcdefx.")
_LOCALHOST_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
_LOOPBACKS = (ipaddress.IPv4Address("127.0.0.1"), ipaddress.IPv6Address("::1"))

_V4_SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT
_V4_THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")
_V4_PRIVATE = tuple(ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
_V6_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
_V6_TEREDO = ipaddress.IPv6Network("2001::/32")
_V6_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_V6_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
_V6_UNIQUE_LOCAL = ipaddress.IPv6Network("fc00::/7")


class RefusedAddress(OSError):
    """A callback's host is, or resolves only to, addresses that are not allowed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def literal_address(host: str) -> IPAddress | None:
    """The address a URL's host names without a DNS lookup, read as the system resolver
    reads it (inet_aton's legacy IPv4 forms included); None for a name."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if ":" in host:
        host = host.split("%", 1)[0]  # an IPv6 zone
        try:
            return ipaddress.IPv6Address(host)
        except ValueError:
            return None
    host = host.rstrip(".")
    try:
        return ipaddress.IPv4Address(host)
    except ValueError:
        pass
    if host and set(host) <= _LEGACY_IPV4 and host[0].isdigit():
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def _article(word: str) -> str:
    return "an" if word[0] in "aeiouAEIOU" else "a"


def _v4_kind(ip: ipaddress.IPv4Address) -> str | None:
    """Why an IPv4 address is not public, or None when it is."""
    if ip in _V4_THIS_NETWORK:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip in _V4_SHARED:
        return "shared (carrier-grade NAT)"
    if any(ip in network for network in _V4_PRIVATE):
        return "private"
    if ip.is_private or ip.is_reserved or not ip.is_global:
        return "reserved"
    return None


def _embedded_v4(ip: ipaddress.IPv6Address) -> tuple[str, ipaddress.IPv4Address] | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, 6to4, NAT64)."""
    if ip.ipv4_mapped is not None:
        return "IPv4-mapped", ip.ipv4_mapped
    if ip in _V6_IPV4_COMPATIBLE and int(ip) > 1:
        return "IPv4-compatible", ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return "6to4", ip.sixtofour
    if ip in _V6_NAT64:
        return "NAT64", ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _v6_kind(ip: ipaddress.IPv6Address) -> str | None:
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip.is_site_local or ip in _V6_UNIQUE_LOCAL or ip in _V6_NAT64_LOCAL:
        return "private"
    if ip in _V6_TEREDO:
        return "Teredo"
    if ip.is_private or ip.is_reserved or not ip.is_global:
        return "reserved"
    return None


def _allowed(ip: IPAddress, networks: Sequence[IPNetwork]) -> bool:
    return any(ip.version == network.version and ip in network for network in networks)


def refusal(ip: IPAddress, allowed: Sequence[IPNetwork] = ()) -> str | None:
    """Why a callback may not reach `ip` ("10.0.0.1 is a private address"), or None."""
    if _allowed(ip, allowed):
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_v4(ip)
        if embedded is not None:
            how, v4 = embedded
            if _allowed(v4, allowed):
                return None
            kind = _v4_kind(v4)
            if kind is not None:
                return f"{ip} is {_article(how)} {how} {kind} address"
            if how in ("IPv4-mapped", "IPv4-compatible"):  # not a route to the internet
                return f"{ip} is {_article(how)} {how} address"
            return None
        kind = _v6_kind(ip)
    else:
        kind = _v4_kind(ip)
    return None if kind is None else f"{ip} is {_article(kind)} {kind} address"


def host_refusal(host: str, allowed: Sequence[IPNetwork] = ()) -> str | None:
    """At registration, before any DNS: why a URL's host may not be a callback's (an address
    literal that is not public, or a localhost name), or None. Other names: `name_refusal`."""
    ip = literal_address(host)
    if ip is not None:
        return refusal(ip, allowed)
    name = host.strip().lower().rstrip(".")
    if name in _LOCALHOST_NAMES or name.endswith(".localhost"):
        if any(refusal(loopback, allowed) is None for loopback in _LOOPBACKS):
            return None
        return f"{name} is a loopback address"
    return None


def needs_resolution(host: str) -> bool:
    """Whether `host` is a name `name_refusal` must resolve (not a literal, not localhost)."""
    name = host.strip().lower().rstrip(".")
    return literal_address(host) is None and name not in _LOCALHOST_NAMES and not name.endswith(".localhost")


async def name_refusal(host: str, allowed: Sequence[IPNetwork] = ()) -> str | None:
    """At registration: why a host name may not be a callback's, once resolved as the delivery
    worker resolves it: it does not resolve (within RESOLVE_SECONDS), or any of its addresses
    is refused. None when every address is allowed."""
    resolver = ThreadedResolver()
    try:
        async with asyncio.timeout(RESOLVE_SECONDS):
            results = await resolver.resolve(host, 0, socket.AF_UNSPEC)
    except (OSError, TimeoutError):
        return f"{host} {NO_ADDRESS}"
    finally:
        await resolver.close()
    for result in results:
        reason = _result_refusal(result, allowed)
        if reason is not None:
            return f"{reason} ({host} resolves to it)"
    return None if results else f"{host} {NO_ADDRESS}"


class GuardedResolver(AbstractResolver):
    """aiohttp's threaded resolver (getaddrinfo) keeping only the allowed addresses; the
    connector connects to what it returns, so a name cannot change between check and use."""

    def __init__(self, allowed: Sequence[IPNetwork]) -> None:
        self._inner = ThreadedResolver()
        self._allowed = tuple(allowed)

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        kept: list[ResolveResult] = []
        reasons: list[str] = []
        for result in await self._inner.resolve(host, port, family):
            reason = _result_refusal(result, self._allowed)
            if reason is None:
                kept.append(result)
            else:
                reasons.append(reason)
        if not kept:
            raise RefusedAddress(reasons[0] if reasons else f"{host} has no address")
        return kept

    async def close(self) -> None:
        await self._inner.close()


def _result_refusal(result: Any, allowed: Sequence[IPNetwork]) -> str | None:
    try:
        ip = ipaddress.ip_address(str(result["host"]).split("%", 1)[0])
    except ValueError:
        return f"{result['host']} is not an address"
    return refusal(ip, allowed)
