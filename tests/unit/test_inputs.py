"""Which requests may carry a catalog-sized body (inputs.body_limit)."""

from __future__ import annotations

import pytest

from comptoir.http.inputs import body_limit, nul_query_parameter


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/locations/abc-1/catalogs"),
        ("POST", "/v1/location/catalogs"),
        ("POST", "/v1/accounts/abc/catalogs"),
        ("POST", "/v1/account/catalogs"),
        ("PUT", "/v1/catalogs/abc"),
        ("PUT", "/v1/catalogs/abc/"),
        ("PUT", "/v1/catalogs/abc/locations/def-1/inventory"),
        ("PATCH", "/v1/catalogs/abc/location/inventory"),
    ],
)
def test_catalog_and_inventory_writes_may_be_large(method: str, path: str) -> None:
    assert body_limit(10, 99, method, path) == 99


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/catalogs/abc/images"),
        ("PATCH", "/v1/catalogs/abc/skus/x"),
        ("POST", "/v1/location/orders"),
        ("PATCH", "/v1/location"),
        ("GET", "/v1/catalogs/abc"),
        ("DELETE", "/v1/catalogs/abc"),
        ("POST", "/oauth2/v1/token"),
        ("POST", "/catalogs/abc"),
    ],
)
def test_every_other_request_has_the_general_limit(method: str, path: str) -> None:
    assert body_limit(10, 99, method, path) == 10


def test_a_nul_in_a_query_parameter_is_found_by_name() -> None:
    assert nul_query_parameter(b"a=1&b=x%00y") == "b"
    assert nul_query_parameter(b"a%00=1") == "a\\0"
    assert nul_query_parameter(b"a=1&b=%2500") is None  # an escaped percent sign
    assert nul_query_parameter(b"a=1") is None
