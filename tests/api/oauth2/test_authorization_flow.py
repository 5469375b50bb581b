"""spec 5.2-5.5 and docs/api/oauth.md "Authorisation": the authorize pages, codes, token and
revoke, over HTTP."""

from __future__ import annotations

import base64
import hashlib
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from comptoir.kit import clock
from comptoir.models import Account, User
from tests.api.conftest import Shop
from tests.api.oauth2.conftest import PASSWORD, REDIRECT, Flow, form_of, options, query_of
from tests.factories import World

LOCATION_SCOPE = "location[orders.write,catalog.read,customer_list.write]"
# spec 5.3 item 3: a token of the profile scope alone is bound to nothing
PROFILE_ONLY = {
    "token_type": "Bearer",
    "scope": "profile",
    **dict.fromkeys(("account_id", "location_id", "catalog_id", "customer_list_id"), None),
    **dict.fromkeys(("account_name", "location_name", "catalog_name", "customer_list_name"), None),
}


def without_token(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "access_token"}


async def test_an_unknown_client_gets_an_error_page_never_a_redirect(flow: Flow, world: World) -> None:
    before = await world.snapshot()
    page = await flow.http.get("/oauth2/v1/authorize?client_id=nope&redirect_uri=https://evil.example/&scope=profile")
    assert page.status_code == 400
    assert "No application has the client id &#39;nope&#39;." in page.text
    assert "location" not in page.headers
    assert await world.snapshot() == before


async def test_an_unregistered_redirect_uri_gets_an_error_page(flow: Flow) -> None:
    url = flow.authorize_url("profile").replace("app.example%2Fcb", "app.example%2Fcb%2Fother")
    page = await flow.http.get(url)
    assert page.status_code == 400
    assert "is not registered for Le Site" in page.text


async def test_an_invalid_scope_goes_back_with_invalid_scope_and_the_state(flow: Flow) -> None:
    answer = await flow.http.get(flow.authorize_url("location[orders.eat]", state="xyz"))
    assert answer.status_code == 303
    back = query_of(answer.headers["location"])
    assert answer.headers["location"].startswith(REDIRECT + "?")
    assert back["error"] == "invalid_scope"
    assert back["state"] == "xyz"


async def test_a_challenge_that_is_not_s256_goes_back_with_invalid_request(flow: Flow) -> None:
    answer = await flow.http.get(flow.authorize_url("profile", code_challenge="c" * 43, state="q"))
    back = query_of(answer.headers["location"])
    assert (answer.status_code, back["error"], back["state"]) == (303, "invalid_request", "q")


async def test_login_choice_and_allow_give_a_code_whose_token_reads_the_api(
    flow: Flow, shop: Shop, world: World
) -> None:
    await world.catalog(location=shop.other_location, name="Lyon menu")  # not bindable from Paris
    shared = await world.catalog(account=shop.account, name="Shared menu")
    url = flow.authorize_url(LOCATION_SCOPE, state="s 1/2")
    page = await flow.log_in(url, "owner@example.com")
    assert options(page.text, "target") == [shop.location.public_id, shop.other_location.public_id]
    allowed = await flow.approve(url, "owner@example.com", target=shop.location.public_id)
    assert allowed.status_code == 303
    back = query_of(allowed.headers["location"])
    assert back["state"] == "s 1/2"
    answer = await flow.exchange(back["code"])
    assert answer.status_code == 200, answer.text
    assert answer.headers["cache-control"] == "no-store"
    assert "access-control-allow-origin" not in answer.headers
    body = answer.json()
    assert set(body) == {
        "access_token", "token_type", "scope", "account_id", "location_id", "catalog_id", "customer_list_id",
        "account_name", "location_name", "catalog_name", "customer_list_name",
    }  # fmt: skip
    assert body["token_type"] == "Bearer"
    assert (body["account_id"], body["location_id"]) == (shop.account.public_id, shop.location.public_id)
    assert (body["account_name"], body["location_name"]) == ("Chez Ada", "Chez Ada Paris")
    assert body["catalog_name"] == "Menu"
    assert body["catalog_id"] != shared.public_id
    assert body["customer_list_name"] is not None
    me = await flow.http.get("/v1/location", headers={"X-Access-Token": body["access_token"]})
    assert me.status_code == 200
    assert me.json()["id"] == shop.location.public_id


async def test_an_account_scope_chooses_an_account(flow: Flow, shop: Shop, world: World) -> None:
    other_owner = await world.user(email="someone@example.com")
    await world.account(owner=other_owner, name="Not yours")
    url = flow.authorize_url("account[orders.read]")
    page = await flow.log_in(url, "owner@example.com")
    assert options(page.text, "target") == [shop.account.public_id]
    body = (await flow.exchange(await flow.code(url, "owner@example.com"))).json()
    assert (body["account_id"], body["location_id"], body["account_name"]) == (shop.account.public_id, None, "Chez Ada")


async def test_a_location_the_user_does_not_own_cannot_be_chosen(flow: Flow, shop: Shop, world: World) -> None:
    foreign = await world.location(name="Elsewhere")
    page = await flow.log_in(flow.authorize_url("location[orders.read]"), "owner@example.com")
    assert foreign.public_id not in options(page.text, "target")
    before = await world.snapshot()
    refused = await flow.post(page, target=foreign.public_id, step="allow")
    assert refused.status_code == 400
    assert "Location: choose one of the list." in refused.text
    assert await world.snapshot() == before


async def test_the_consent_page_says_what_the_application_may_do(flow: Flow, shop: Shop) -> None:
    url = flow.authorize_url("location[orders.read,inventory.write],profile_with_email")
    consent = await flow.log_in(url, "owner@example.com")
    assert "See the orders of this location." in consent.text
    assert "See and update the stock of this location." in consent.text
    assert "See your name, email address, time zone and languages." in consent.text
    assert consent.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in consent.headers["content-security-policy"]


async def test_deny_goes_back_with_access_denied_and_no_code(flow: Flow, shop: Shop, world: World) -> None:
    url = flow.authorize_url("profile", state="abc")
    page = await flow.log_in(url, "owner@example.com")
    before = await world.snapshot()
    denied = await flow.post(page, step="deny")
    assert denied.status_code == 303
    assert query_of(denied.headers["location"]) == {"error": "access_denied", "state": "abc"}
    assert await world.snapshot() == before


async def test_signup_creates_the_user_account_and_location_prefilled_from_the_request(
    flow: Flow, world: World
) -> None:
    url = flow.authorize_url("location[orders.read]", country="DE", account_name="Kaffee", location_name="Mitte")
    login = await flow.http.get(url)
    signup = await flow.http.get(url + "&screen=signup")
    assert "Sign up" in login.text
    assert 'value="Kaffee"' in signup.text
    assert 'value="DE" selected' in signup.text
    created = await flow.post(
        signup,
        first_name="Grete",
        last_name="Weiss",
        email="Grete@Example.com",
        password=PASSWORD,
        account_name="Kaffee",
        location_name="Mitte",
        country="DE",
    )
    assert created.status_code == 303, created.text
    consent = await flow.http.get(created.headers["location"])
    [location_id] = options(consent.text, "target")
    allowed = await flow.post(consent, target=location_id, step="allow")
    token = (await flow.exchange(query_of(allowed.headers["location"])["code"])).json()
    assert (token["account_name"], token["location_name"]) == ("Kaffee", "Mitte")
    headers = {"X-Access-Token": token["access_token"]}
    location = (await flow.http.get("/v1/location", headers=headers)).json()
    assert (location["timezone"]["name"], location["country"]) == ("Europe/Berlin", "DE")
    async with world.db.transaction(write=False) as session:
        account = await session.scalar(select(Account).where(Account.name == "Kaffee"))
        user = await session.get(User, account.owner_id)
    assert account.currency == "EUR"  # the country's currency
    assert (user.email, user.first_name, user.timezone) == ("grete@example.com", "Grete", "Europe/Berlin")


async def test_a_signup_with_an_email_in_use_is_refused_and_creates_nothing(
    flow: Flow, shop: Shop, world: World
) -> None:
    signup = await flow.http.get(flow.authorize_url("profile") + "&screen=signup")
    before = await world.snapshot()
    refused = await flow.post(
        signup, email="owner@example.com", password=PASSWORD, account_name="A", location_name="B", country="FR"
    )
    assert refused.status_code == 400
    assert (
        "Email: an account already uses this address: log in with it, or sign up with another address" in refused.text
    )
    assert await world.snapshot() == before


async def test_a_forged_csrf_token_is_refused_and_logs_nobody_in(flow: Flow, shop: Shop, world: World) -> None:
    url = flow.authorize_url("profile")
    page = await flow.http.get(url)
    action, hidden = form_of(page.text)
    before = await world.snapshot()
    forged = await flow.http.post(
        action, data={**hidden, "csrf": "0" * 32, "email": "owner@example.com", "password": PASSWORD}
    )
    assert forged.status_code == 403
    assert "This form has expired or was not sent from this page. Go back and try again.</p>" in forged.text
    assert "Log in" in (await flow.http.get(url)).text  # still logged out
    signup = await flow.http.get(url + "&screen=signup")
    action, hidden = form_of(signup.text)
    fields = {"email": "new@example.com", "password": PASSWORD, "account_name": "A", "location_name": "B"}
    forged = await flow.http.post(action, data={**hidden, **fields, "country": "FR", "csrf": "0" * 32})
    assert forged.status_code == 403
    assert "This form has expired or was not sent from this page. Go back and try again.</p>" in forged.text
    assert await world.snapshot() == before


async def test_a_wrong_password_shows_the_login_again(flow: Flow, shop: Shop) -> None:
    page = await flow.http.get(flow.authorize_url("profile"))
    again = await flow.post(page, email="owner@example.com", password="wrong-password")
    assert again.status_code == 400
    assert "Wrong email or password." in again.text


async def test_ten_failed_logins_lock_that_address_out_of_the_account(flow: Flow, shop: Shop) -> None:
    page = await flow.http.get(flow.authorize_url("profile"))
    for _ in range(10):
        assert (await flow.post(page, email="owner@example.com", password="wrong-password")).status_code == 400
    blocked = await flow.post(page, email="owner@example.com", password=PASSWORD)
    assert blocked.status_code == 429
    assert "Too many failed attempts" in blocked.text


async def test_a_used_code_is_refused_with_400_and_revokes_its_token(flow: Flow, shop: Shop, world: World) -> None:
    code = await flow.code(flow.authorize_url("profile"), "owner@example.com")
    token = (await flow.exchange(code)).json()["access_token"]
    before = await world.snapshot()
    again = await flow.exchange(code)
    after = await world.snapshot()
    # RFC 6749 4.1.2: only the connection the code gave changed (revoked)
    assert {t: rows for t, rows in after.items() if t != "connections"} == {
        t: rows for t, rows in before.items() if t != "connections"
    }
    assert len(after["connections"]) == len(before["connections"])
    assert (await flow.http.get("/v1/user", headers={"X-Access-Token": token})).status_code == 401
    assert again.status_code == 400
    assert again.json() == {
        "error_type": "bad_request",
        "message": "The authorization code has already been used",
        "error": "invalid_grant",
    }


async def test_an_expired_code_is_refused_with_400(flow: Flow, shop: Shop, world: World) -> None:
    code = await flow.code(flow.authorize_url("profile"), "owner@example.com")
    clock.travel(timedelta(minutes=10, seconds=1))
    before = await world.snapshot()
    expired = await flow.exchange(code)
    assert expired.status_code == 400
    assert expired.json()["message"] == "The authorization code has expired"
    assert await world.snapshot() == before


async def test_a_different_redirect_uri_at_the_token_endpoint_is_400(flow: Flow, shop: Shop) -> None:
    code = await flow.code(flow.authorize_url("profile"), "owner@example.com")
    wrong = await flow.exchange(code, redirect_uri="https://app.example/other")
    assert wrong.status_code == 400
    assert wrong.json()["error"] == "invalid_grant"
    assert (await flow.exchange(code, redirect_uri=REDIRECT)).status_code == 200


async def test_wrong_client_credentials_are_401_by_basic_and_by_body(flow: Flow, shop: Shop) -> None:
    code = await flow.code(flow.authorize_url("profile"), "owner@example.com")
    by_basic = await flow.http.post("/oauth2/v1/token", data={"code": code}, auth=(flow.client.public_id, "wrong"))
    by_body = await flow.http.post(
        "/oauth2/v1/token", data={"code": code, "client_id": flow.client.public_id, "client_secret": "wrong"}
    )
    for answer in (by_basic, by_body):
        assert answer.status_code == 401
        assert answer.json()["error"] == "invalid_client"
    good = await flow.http.post(
        "/oauth2/v1/token", data={"code": code, "client_id": flow.client.public_id, "client_secret": flow.secret}
    )
    assert good.status_code == 200  # the code survived the failed attempts
    assert without_token(good.json()) == PROFILE_ONLY


async def test_only_the_authorization_code_grant_is_accepted(flow: Flow, shop: Shop, world: World) -> None:
    code = await flow.code(flow.authorize_url("profile"), "owner@example.com")
    before = await world.snapshot()
    refused = await flow.exchange(code, grant_type="client_credentials")
    assert (refused.status_code, refused.json()["error"]) == (400, "unsupported_grant_type")
    assert await world.snapshot() == before
    assert (await flow.exchange(code, grant_type="authorization_code")).status_code == 200


async def test_the_token_endpoint_takes_a_json_body_too(flow: Flow, shop: Shop) -> None:
    code = await flow.code(flow.authorize_url("profile"), "owner@example.com")
    answer = await flow.http.post(
        "/oauth2/v1/token", json={"code": code, "client_id": flow.client.public_id, "client_secret": flow.secret}
    )
    assert answer.status_code == 200
    assert without_token(answer.json()) == PROFILE_ONLY
    me = await flow.http.get("/v1/user", headers={"X-Access-Token": answer.json()["access_token"]})
    assert (me.status_code, me.json()["first_name"]) == (200, "Ada")


async def test_re_authorising_gives_the_same_token_and_a_name_a_new_one(flow: Flow, shop: Shop) -> None:
    url = flow.authorize_url("location[orders.read]")
    first = (await flow.exchange(await flow.code(url, "owner@example.com"))).json()["access_token"]
    second = (await flow.exchange(await flow.code(url, "owner@example.com"))).json()["access_token"]
    named = flow.authorize_url("location[orders.read]", name="till 2")
    third = (await flow.exchange(await flow.code(named, "owner@example.com"))).json()["access_token"]
    aliased = flow.authorize_url("location[orders.read]", device_id="till 2")
    fourth = (await flow.exchange(await flow.code(aliased, "owner@example.com"))).json()["access_token"]
    assert first == second
    assert third != first
    assert fourth == third


async def test_the_oob_redirect_shows_the_code_on_a_page(flow: Flow, shop: Shop) -> None:
    url = flow.authorize_url("profile").replace("https%3A%2F%2Fapp.example%2Fcb", "urn%3Aietf%3Awg%3Aoauth%3A2.0%3Aoob")
    page = await flow.approve(url, "owner@example.com")
    assert page.status_code == 200
    code = page.text.split('<output aria-label="Authorization code">')[1].split("<")[0]
    assert (await flow.exchange(code)).status_code == 200


async def test_pkce_is_enforced_when_a_challenge_was_sent(flow: Flow, shop: Shop) -> None:
    verifier = "v" * 50
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    url = flow.authorize_url("profile", code_challenge=challenge, code_challenge_method="S256")
    code = await flow.code(url, "owner@example.com")
    missing = await flow.exchange(code)
    wrong = await flow.exchange(code, code_verifier="w" * 50)
    assert (missing.status_code, missing.json()) == (
        400,
        {
            "error_type": "bad_request",
            "message": "code_verifier is required: the authorization used PKCE",
            "error": "invalid_grant",
        },
    )
    assert (wrong.status_code, wrong.json()) == (
        400,
        {
            "error_type": "bad_request",
            "message": "code_verifier does not match the code_challenge",
            "error": "invalid_grant",
        },
    )
    assert (await flow.exchange(code, code_verifier=verifier)).status_code == 200


async def test_revoke_makes_the_token_401_with_the_spec_message(flow: Flow, shop: Shop, world: World) -> None:
    code = await flow.code(flow.authorize_url("location[orders.read]"), "owner@example.com")
    token = (await flow.exchange(code)).json()["access_token"]
    other = await world.client(name="Other")
    from comptoir.applications.service import client_secret

    before = await world.snapshot()
    refused = await flow.http.post(
        "/oauth2/v1/revoke", data={"token": token}, auth=(other.public_id, client_secret(world.key, other))
    )
    assert refused.status_code == 400
    assert refused.json()["error"] == "unauthorized_client"
    assert await world.snapshot() == before
    unknown = await flow.http.post(
        "/oauth2/v1/revoke", data={"token": "f" * 32}, auth=(flow.client.public_id, flow.secret)
    )
    assert (unknown.status_code, unknown.json()) == (200, {})  # RFC 7009 2.2: already unusable
    still = await flow.http.get("/v1/location", headers={"X-Access-Token": token})
    assert (still.status_code, still.json()["id"]) == (200, shop.location.public_id)
    revoked = await flow.http.post(
        "/oauth2/v1/revoke", data={"token": token}, auth=(flow.client.public_id, flow.secret)
    )
    assert (revoked.status_code, revoked.json()) == (200, {})
    answer = await flow.http.get("/v1/location", headers={"X-Access-Token": token})
    assert answer.status_code == 401
    assert answer.json() == {
        "error_type": "unauthorized",
        "message": "The access token is invalid or the connection has been revoked",
    }


async def test_codes_a_day_past_their_expiry_are_purged(flow: Flow, shop: Shop, world: World) -> None:
    from comptoir.jobs.timed import purge_history
    from comptoir.models import AuthorizationCode

    await flow.code(flow.authorize_url("profile"), "owner@example.com")
    await purge_history(world.db)
    clock.travel(timedelta(days=1, minutes=11))
    await flow.code(flow.authorize_url("profile"), "owner@example.com")
    await purge_history(world.db)
    async with world.db.transaction(write=False) as session:
        assert len((await session.scalars(select(AuthorizationCode))).all()) == 1


async def test_codes_tokens_secrets_and_passwords_are_never_logged(
    flow: Flow, shop: Shop, capsys: pytest.CaptureFixture[str]
) -> None:
    url = flow.authorize_url("location[orders.read]", state="st")
    code = await flow.code(url, "owner@example.com")
    token = (await flow.exchange(code)).json()["access_token"]
    await flow.http.post("/oauth2/v1/revoke", data={"token": token}, auth=(flow.client.public_id, flow.secret))
    await flow.exchange("wrong-code")
    logged = capsys.readouterr()
    assert "POST" in logged.out + logged.err  # the requests were logged
    for secret in (code, token, flow.secret, PASSWORD):
        assert secret not in logged.out + logged.err


async def test_the_token_endpoint_answers_no_cors_preflight(flow: Flow) -> None:
    preflight = await flow.http.options(
        "/oauth2/v1/token",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert not any(name.startswith("access-control-") for name in preflight.headers)
