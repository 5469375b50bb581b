"""The client and scheme behind a trusted proxy (docs/operations.md "Behind a proxy"):
`http/forwarded.py`'s step and COMPTOIR_FORWARDED_ALLOW_IPS."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

import pytest

from comptoir.config import Settings, parse_forwarded_allow_ips
from comptoir.http.forwarded import MAX_HOPS, TrustedProxies, forwarded, forwarded_client, parse_address

PROXIES = TrustedProxies(parse_forwarded_allow_ips("127.0.0.1, 10.0.0.0/8, 2001:db8:ffff::/48"))


def scope(peer: str | None, *headers: tuple[bytes, bytes]) -> dict[str, Any]:
    return {"type": "http", "client": (peer, 5000) if peer else None, "scheme": "http", "headers": list(headers)}


def test_the_setting_is_addresses_and_networks() -> None:
    assert parse_forwarded_allow_ips(" 127.0.0.1 ,10.1.2.3/8,,::1") == (
        ipaddress.ip_network("127.0.0.1/32"),
        ipaddress.ip_network("10.0.0.0/8"),
        ipaddress.ip_network("::1/128"),
    )
    assert parse_forwarded_allow_ips("") == ()


def test_star_trusts_every_address() -> None:
    assert parse_forwarded_allow_ips("*") == (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0"))


@pytest.mark.parametrize("bad", ["notanip", "10.0.0.0/33", "localhost", "1.2.3.4:80", "**"])
def test_a_bad_entry_is_refused_naming_the_variable(bad: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"COMPTOIR_FORWARDED_ALLOW_IPS: {bad!r} is not an IP address")):
        Settings(forwarded_allow_ips=f"127.0.0.1,{bad}")


@pytest.mark.parametrize(
    ("entry", "address"),
    [
        ("203.0.113.7", "203.0.113.7"),
        (" 203.0.113.7:4711 ", "203.0.113.7"),
        ("2001:db8::7", "2001:db8::7"),
        ("[2001:db8::7]", "2001:db8::7"),
        ("[2001:db8::7]:443", "2001:db8::7"),
    ],
)
def test_parse_address_reads_the_forms_proxies_write(entry: str, address: str) -> None:
    assert parse_address(entry) == ipaddress.ip_address(address)


@pytest.mark.parametrize(
    "entry", ["", "unknown", "_hidden", "1.2.3.4.5", "1.2.3.4:x", "[2001:db8::7", "[2001:db8::7]x", "[::1]:", "é"]
)
def test_parse_address_is_none_for_anything_else(entry: str) -> None:
    assert parse_address(entry) is None


@pytest.mark.parametrize(
    ("header", "client"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("198.51.100.1, 203.0.113.7", "203.0.113.7"),  # the left is the client's to write
        ("203.0.113.7, 10.0.0.5", "203.0.113.7"),  # a second trusted proxy
        ("203.0.113.7, 10.0.0.5, 127.0.0.1", "203.0.113.7"),
        ("10.0.0.9, 10.0.0.5", "10.0.0.9"),  # only proxies: the farthest
        ("garbage, 203.0.113.7", "203.0.113.7"),
        ("203.0.113.7, garbage, 10.0.0.5", "10.0.0.5"),  # the walk ends at what is no address
        ("2001:db8:0:7::1, 2001:db8:ffff::2", "2001:db8:0:7::1"),
        ("::ffff:10.0.0.5, 203.0.113.7", "203.0.113.7"),
    ],
)
def test_forwarded_client_is_the_right_most_untrusted_address(header: str, client: str) -> None:
    assert forwarded_client(header, PROXIES) == client


@pytest.mark.parametrize("header", ["", "garbage", "203.0.113.7, ", "203.0.113.7,unknown"])
def test_forwarded_client_is_none_when_the_right_most_entry_is_no_address(header: str) -> None:
    assert forwarded_client(header, PROXIES) is None


def test_a_long_chain_of_proxies_is_walked_only_so_far() -> None:
    header = "203.0.113.7, " + ", ".join(["10.0.0.1"] * 10_000)
    assert forwarded_client(header, PROXIES) == "10.0.0.1"
    header = "203.0.113.7, " + ", ".join(["10.0.0.1"] * (MAX_HOPS - 1))
    assert forwarded_client(header, PROXIES) == "203.0.113.7"


def test_star_makes_the_client_the_left_most_address_anyone_can_write() -> None:
    everyone = TrustedProxies(parse_forwarded_allow_ips("*"))
    assert forwarded_client("6.6.6.6, 203.0.113.7", everyone) == "6.6.6.6"


def test_a_trusted_peer_forwards_the_client_and_the_scheme() -> None:
    given = scope("127.0.0.1", (b"x-forwarded-for", b"203.0.113.7"), (b"x-forwarded-proto", b"HTTPS"))
    made = forwarded(given, PROXIES)
    assert (made["client"], made["scheme"]) == (("203.0.113.7", 0), "https")
    assert given["client"] == ("127.0.0.1", 5000)  # the step makes a new scope


def test_several_x_forwarded_for_lines_are_one_list_in_order() -> None:
    given = scope("127.0.0.1", (b"x-forwarded-for", b"198.51.100.1"), (b"x-forwarded-for", b"203.0.113.7, 10.0.0.5"))
    assert forwarded(given, PROXIES)["client"] == ("203.0.113.7", 0)


def test_what_is_judged_is_remembered_within_bounds() -> None:
    proxies = TrustedProxies(PROXIES.networks)
    assert proxies.judge(" 10.0.0.5 ") == ("10.0.0.5", True)
    assert proxies.judge("[2001:DB8::7]:443") == ("2001:db8::7", False)
    assert proxies.judge("nonsense") == (None, False)
    assert proxies.judge("1" * 65) == (None, False)  # too long to be kept
    assert list(proxies._judged) == [" 10.0.0.5 ", "[2001:DB8::7]:443", "nonsense"]
    for i in range(5000):
        proxies.judge(f"192.0.2.{i}")
    assert 0 < len(proxies._judged) <= 4096


def test_an_ipv4_mapped_peer_is_its_ipv4_address() -> None:
    given = scope("::ffff:127.0.0.1", (b"x-forwarded-for", b"203.0.113.7"))
    assert forwarded(given, PROXIES)["client"] == ("203.0.113.7", 0)


@pytest.mark.parametrize("peer", ["203.0.113.1", "127.0.0.2", "::1", None])
def test_an_untrusted_peer_keeps_its_address_and_scheme(peer: str | None) -> None:
    given = scope(peer, (b"x-forwarded-for", b"203.0.113.7"), (b"x-forwarded-proto", b"https"))
    assert forwarded(given, PROXIES) is given


def test_without_trusted_proxies_nothing_is_read() -> None:
    given = scope("127.0.0.1", (b"x-forwarded-for", b"203.0.113.7"), (b"x-forwarded-proto", b"https"))
    assert forwarded(given, TrustedProxies()) is given


@pytest.mark.parametrize("proto", [b"ftp", b"https, http", b"", b"wss"])
def test_an_unknown_scheme_is_not_taken(proto: bytes) -> None:
    given = scope("127.0.0.1", (b"x-forwarded-proto", proto))
    assert forwarded(given, PROXIES) is given


def test_the_rfc_7239_header_is_not_read() -> None:
    given = scope("127.0.0.1", (b"forwarded", b"for=203.0.113.7;proto=https"))
    assert forwarded(given, PROXIES) is given
