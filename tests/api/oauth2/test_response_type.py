"""RFC 6749 4.1.2.1 at /authorize (docs/api/oauth.md "Refused authorisation requests"):
`response_type` other than `code` goes back to a registered redirect URI with an error, and
an error whose redirect cannot be followed (the copy-paste flow's `urn:ietf:wg:oauth:2.0:oob`)
is a page naming the error code and its description."""

from __future__ import annotations

import pytest

from comptoir.applications.service import OOB_REDIRECT_URI
from tests.api.conftest import Shop
from tests.api.oauth2.conftest import REDIRECT, Flow, query_of
from tests.factories import World


def _oob(flow: Flow, scope: str, **params: str) -> str:
    return flow.authorize_url(scope, **params).replace(
        "https%3A%2F%2Fapp.example%2Fcb", "urn%3Aietf%3Awg%3Aoauth%3A2.0%3Aoob"
    )


@pytest.mark.parametrize("value", ["token", "code token", "id_token", "CODE"])
async def test_an_unsupported_response_type_goes_back_with_unsupported_response_type(
    flow: Flow, world: World, value: str
) -> None:
    before = await world.snapshot()
    answer = await flow.http.get(flow.authorize_url("profile", response_type=value, state="s"))
    assert answer.status_code == 303
    assert answer.headers["location"].startswith(REDIRECT + "?")
    assert query_of(answer.headers["location"]) == {
        "error": "unsupported_response_type",
        "error_description": f"response_type “{value}” is not supported: only code is",
        "state": "s",
    }
    assert await world.snapshot() == before


async def test_response_type_code_is_served(flow: Flow, shop: Shop) -> None:
    page = await flow.http.get(flow.authorize_url("profile", response_type="code"))
    assert page.status_code == 200
    assert 'name="step" value="login"' in page.text


async def test_a_request_without_response_type_is_served_as_code(flow: Flow, shop: Shop) -> None:
    # compatible: the authorisation request of docs/api/oauth.md "Authorisation" names none
    code = await flow.code(flow.authorize_url("profile"), "owner@example.com")
    assert (await flow.exchange(code)).status_code == 200


async def test_an_empty_or_repeated_response_type_goes_back_with_invalid_request(flow: Flow) -> None:
    empty = await flow.http.get(flow.authorize_url("profile", response_type=""))
    assert query_of(empty.headers["location"])["error"] == "invalid_request"
    assert query_of(empty.headers["location"])["error_description"] == "response_type is empty: send code"
    twice = await flow.http.get(flow.authorize_url("profile", response_type="code") + "&response_type=token")
    assert query_of(twice.headers["location"]) == {
        "error": "invalid_request",
        "error_description": "response_type was sent more than once",
    }


async def test_the_copy_paste_flow_shows_an_unsupported_response_type_on_a_page(flow: Flow, world: World) -> None:
    before = await world.snapshot()
    page = await flow.http.get(_oob(flow, "profile", response_type="token"))
    assert page.status_code == 400
    assert "location" not in page.headers
    assert "<code>unsupported_response_type</code>" in page.text
    assert "response_type “token” is not supported: only code is" in page.text
    assert OOB_REDIRECT_URI not in page.text
    assert await world.snapshot() == before


async def test_the_copy_paste_flow_shows_an_invalid_scope_on_a_page(flow: Flow) -> None:
    page = await flow.http.get(_oob(flow, "location[orders.eat]"))
    assert page.status_code == 400
    assert "location" not in page.headers
    assert "<code>invalid_scope</code>" in page.text


async def test_the_copy_paste_flow_shows_a_bad_pkce_challenge_on_a_page(flow: Flow) -> None:
    page = await flow.http.get(_oob(flow, "profile", code_challenge="c" * 43))
    assert page.status_code == 400
    assert "<code>invalid_request</code>" in page.text
    assert "code_challenge must be an S256 challenge" in page.text


async def test_an_unknown_client_page_names_its_error_code(flow: Flow) -> None:
    page = await flow.http.get("/oauth2/v1/authorize?client_id=nope&redirect_uri=https://evil.example/&scope=profile")
    assert page.status_code == 400
    assert "<code>invalid_request</code>" in page.text
