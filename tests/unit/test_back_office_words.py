"""docs/back-office.md "Layout, navigation and words": statuses, quantities and times as
every page shows them, and form errors in the form's order."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from comptoir.errors import FieldError, Unprocessable
from comptoir.orders.schemas import STATUSES
from comptoir.web.render import Problem, problems
from comptoir.web.words import local_time, quantity, service_type_words, status_words, when


def test_every_order_status_has_its_words() -> None:
    words = [status_words(status) for status in STATUSES]
    assert words == [
        "New", "Received", "Accepted", "In preparation", "Awaiting shipment", "Ready for collection",
        "Out for delivery", "Completed", "Rejected", "Cancelled", "Delivery failed",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("given", "shown"),
    [("2.0", "2"), ("0.500", "0.5"), (Decimal("2.000"), "2"), ("10", "10"), ("1E+1", "10"), ("0.000", "0"),
     ("1.25", "1.25"), (3, "3"), ("", "")],
)  # fmt: skip
def test_a_quantity_loses_its_useless_zeros(given: str | Decimal | int, shown: str) -> None:
    assert quantity(given) == shown


def test_a_time_is_shown_in_the_zone_it_names() -> None:
    moment = datetime(2026, 11, 27, 15, 5, tzinfo=UTC)
    assert local_time(moment, "Europe/Paris") == "27 Nov 2026, 16:05 CET"
    assert local_time(moment, "Europe/Istanbul") == "27 Nov 2026, 18:05 UTC+03"
    assert local_time(moment, "UTC", seconds=True) == "27 Nov 2026, 15:05:00 UTC"
    assert when("2026-06-24T17:07:53+02:00", "Europe/London") == "24 Jun 2026, 16:07 BST"
    assert when("2026-06-24") == "24 Jun 2026"
    assert (local_time(None, "UTC"), when(None)) == ("never", "")


def test_form_errors_come_in_the_forms_order_with_its_labels() -> None:
    refusal = Unprocessable(
        [
            FieldError("cutoff_time", "must be HH:mm"),
            FieldError("opening_hours.tuesday[1].from", "'25:00' is not a valid time of day"),
            FieldError("opening_hours.monday[1]", "overlaps opening_hours.monday[0]"),
            FieldError("elsewhere", "is wrong"),
        ]
    )
    fields = {"opening_hours.monday": "monday", "opening_hours.tuesday": "tuesday", "cutoff_time": "cutoff_time"}
    assert problems(refusal, fields, labels={"cutoff_time": "Cutoff"}, item="slot") == [
        Problem("monday", "Monday, slot 2: overlaps slot 1"),
        Problem("tuesday", "Tuesday, slot 2: '25:00' is not a valid time of day"),
        Problem("cutoff_time", "Cutoff: must be HH:mm"),
        Problem(None, "Elsewhere: is wrong"),
    ]


def test_service_types_read_as_words() -> None:
    assert [service_type_words(t) for t in ("delivery", "collection", "eat_in", None, "drive_thru")] == [
        "Delivery", "Collection", "Eat in", "", "Drive thru",
    ]  # fmt: skip
