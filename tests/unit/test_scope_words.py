"""docs/back-office.md "Connections, logs and charts": a connection's scope in words."""

from __future__ import annotations

from comptoir.web.render import templates
from comptoir.web.scope_words import scope_words


def test_a_location_scope_reads_with_the_names_it_is_bound_to() -> None:
    assert scope_words(
        "location[orders.write,catalog.read,inventory.read],profile_with_email",
        "Chez Ada Paris",
        "Menu",
        None,
    ) == [
        "Read and write orders of Chez Ada Paris",
        "Read the catalog Menu, and the stock of Chez Ada Paris",
        "Read stock of Chez Ada Paris",
        "See your name, email address, time zone and languages",
    ]


def test_an_account_scope_reaches_all_its_locations() -> None:
    assert scope_words("account[all_catalogs.write,all_customer_lists.read]", "Chez Ada") == [
        "Read and write every catalog of Chez Ada and all its locations",
        "Read every customer list of Chez Ada and all its locations",
    ]


def test_without_names_the_words_say_this_location_and_the_bound_list() -> None:
    assert scope_words("location[customer_list.write,catalog.write]") == [
        "Read and write the customers and loyalty cards of the customer list bound to the connection (none now)",
        "Read and write the catalog bound to the connection (none now), and the stock of this location",
    ]
    assert scope_words("account[orders.read]") == ["Read orders of this account and all its locations"]


def test_profile_alone() -> None:
    assert scope_words("profile") == ["See your name, time zone and languages"]


def test_an_unparsable_scope_is_shown_as_written() -> None:
    assert scope_words("location[orders.fly]") == ["location[orders.fly]"]


def test_names_are_escaped_by_the_templates() -> None:
    shown = templates.from_string("{% for line in s | scope_words(p) %}<li>{{ line }}</li>{% endfor %}").render(
        s="location[orders.read]", p="<script>alert(1)</script>"
    )
    assert shown == "<li>Read orders of &lt;script&gt;alert(1)&lt;/script&gt;</li>"
