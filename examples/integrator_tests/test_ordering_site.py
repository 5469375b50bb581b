"""An ordering site's tests against the sandbox: its orders reach the point of sale, it is
told when they are accepted, a callback it failed is sent again, and every test starts from
the seed (examples/pizzeria.seed.json). Run them with `pytest examples/integrator_tests`."""

from __future__ import annotations

import json

from comptoir_client import verify_hmac
from comptoir_client.pytest_plugin import Sandbox

PIZZA = {"product_name": "Margherita", "sku_ref": "margherita-33", "price": "13.50 EUR", "quantity": "2"}


def test_an_order_placed_by_the_site_reaches_the_point_of_sale(comptoir_sandbox: Sandbox) -> None:
    paris = comptoir_sandbox.ids["locations"]["paris"]
    site = comptoir_sandbox.client("ordering_site_paris")
    pos = comptoir_sandbox.client("pos_paris")

    order = site.orders.create(paris, {"status": "new", "service_type": "collection", "items": [PIZZA]})

    assert order.total == "27.00 EUR"
    assert [(o.id, o.created_by) for o in pos.orders.list(paris, status="new")] == [(order.id, "Ordering site")]


def test_the_site_is_told_when_the_point_of_sale_accepts_its_order(comptoir_sandbox: Sandbox, receiver) -> None:
    paris = comptoir_sandbox.ids["locations"]["paris"]
    site = comptoir_sandbox.client("ordering_site_paris")
    site.callback.set(receiver.url, {"own_order": ["update"]})  # the site's endpoint
    order = site.orders.create(paris, {"status": "new", "items": [PIZZA]})

    comptoir_sandbox.client("pos_paris").orders.update(paris, order.id, {"status": "accepted"})

    [delivery] = comptoir_sandbox.wait_for_deliveries(connection="ordering_site_paris")
    assert (delivery["event_type"], delivery["response"]["status"], delivery["acknowledged"]) == (
        "own_order.update",
        200,
        True,
    )
    [(headers, body)] = receiver.received  # what the site's endpoint got, signed for it
    secret = comptoir_sandbox.application("ordering_site")["client_secret"]
    assert verify_hmac(body, headers, secret).event_id == delivery["event_id"]
    assert json.loads(body)["order_id"] == order.id


def test_a_callback_the_site_failed_is_sent_again_once_its_wait_has_passed(comptoir_sandbox: Sandbox, receiver) -> None:
    paris = comptoir_sandbox.ids["locations"]["paris"]
    site = comptoir_sandbox.client("ordering_site_paris")
    site.callback.set(receiver.url, {"own_order": ["update"]})
    receiver.statuses = [500]  # the site's endpoint is down for the first attempt
    order = site.orders.create(paris, {"status": "new", "items": [PIZZA]})
    comptoir_sandbox.client("pos_paris").orders.update(paris, order.id, {"status": "accepted"})
    comptoir_sandbox.wait_for_deliveries(1, connection="ordering_site_paris")

    comptoir_sandbox.advance_clock(61)  # past the first resend's wait, without waiting it out

    listed = comptoir_sandbox.wait_for_deliveries(2, connection="ordering_site_paris")
    assert [(d["attempt"], d["response"]["status"]) for d in listed] == [(2, 200), (1, 500)]


def test_the_site_signs_up_a_customer(comptoir_sandbox: Sandbox) -> None:
    regulars = comptoir_sandbox.ids["customer_lists"]["regulars"]
    site = comptoir_sandbox.client("ordering_site_paris")

    site.customers.create(regulars, {"first_name": "Zoé", "email": "zoe@example.com"})

    assert sorted(c.first_name for c in site.customers.list(regulars)) == ["Alice", "Bruno", "Zoé"]


def test_each_test_starts_from_the_seed(comptoir_sandbox: Sandbox) -> None:
    regulars = comptoir_sandbox.ids["customer_lists"]["regulars"]
    site = comptoir_sandbox.client("ordering_site_paris")

    # the customer and the orders of the tests above are gone, the clock is real again
    assert sorted(c.first_name for c in site.customers.list(regulars)) == ["Alice", "Bruno"]
    assert list(site.orders.list(comptoir_sandbox.ids["locations"]["paris"])) == []
    assert comptoir_sandbox.now().real is True
    assert comptoir_sandbox.deliveries() == []
