"""The elements of an order (items, discounts, charges, payments; spec 2.5): their stored
form, the currency they must be in, their ids, and the element forms of an update (spec 4.1):
add, delete, set a private ref. Rules only: `orders.service` calls them."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from comptoir.errors import FieldErrors, field_path, validation_message
from comptoir.kit import ids
from comptoir.kit.money import Money
from comptoir.kit.refs import parse_private_ref
from comptoir.kit.wire import WireError, shown
from comptoir.orders.render import ELEMENT_KIND, MONEY_FIELDS
from comptoir.orders.schemas import ELEMENT_MODELS


def _amount(money: Money | None) -> str | None:
    return format(money.amount, "f") if money is not None else None


def _option(option: Any) -> dict[str, Any]:
    stored = {name: value for name, value in option.__dict__.items() if name != "price"}
    stored["price"] = _amount(option.price)
    return stored


def stored_element(collection: str, given: Any, element_id: int) -> dict[str, Any]:
    """The stored form of a new element (decimals and amounts as exact strings)."""
    stored: dict[str, Any] = {"id": element_id, "deleted": False}
    for name, value in given.__dict__.items():  # the fields, as iterating the model gives them
        if name == "private_ref":
            continue
        if isinstance(value, Money):
            stored[name] = _amount(value)
        elif isinstance(value, Decimal):
            stored[name] = format(value, "f")
        elif name == "options":  # their fields are plain values: no model_dump needed
            stored[name] = [_option(option) for option in value]
        elif name == "deal_line":
            stored[name] = dict(value.__dict__) if value is not None else None
        else:
            stored[name] = value
    return stored


def _check_currency(path: str, money: Money | None, currency: str, errors: FieldErrors) -> None:
    if money is not None and money.currency != currency:
        errors.add(path, f"must be in {currency}, the account's currency (not {money.currency})")


def check_currencies(collection: str, index: int, element: Any, currency: str, errors: FieldErrors) -> None:
    prefix = f"{collection}[{index}]"
    _check_currency(
        f"{prefix}.{MONEY_FIELDS[collection]}", getattr(element, MONEY_FIELDS[collection]), currency, errors
    )
    for j, option in enumerate(getattr(element, "options", None) or []):
        _check_currency(f"{prefix}.options[{j}].price", option.price, currency, errors)


def give_ids(added: list[tuple[dict[str, Any], str | None]], refs: dict[str, str], element_ids: list[int]) -> None:
    """The new elements' ids, taken once the order is accepted (a refused request takes
    none), and the caller's refs on them."""
    for (entry, ref), element_id in zip(added, element_ids, strict=True):
        entry["id"] = element_id
        if ref is not None:
            refs[str(element_id)] = ref


_SINGULAR = {"items": "item", "discounts": "discount", "charges": "charge", "payments": "payment"}


def element_changes(
    collection: str, raw_elements: list[Any], stored: dict[str, Any], refs: dict[str, Any], errors: FieldErrors
) -> list[Any]:
    """spec 4.1's three forms: add (the full element, no id), delete (`id` and `deleted:
    true`, irreversible), set private ref (`id` and `private_ref`). Applies deletions and
    refs to `stored`/`refs`; returns the validated elements to add."""
    by_public_id = {ids.encode(ELEMENT_KIND, e["id"]): e for e in stored[collection]}
    adds = []
    for i, raw in enumerate(raw_elements):
        path = f"{collection}[{i}]"
        if not isinstance(raw, dict):
            errors.add(path, "must be a JSON object")
            continue
        if raw.get("id") is None:  # docs/api/conventions.md "Null fields": `id: null` is no id
            try:
                element = ELEMENT_MODELS[collection].model_validate(raw)
            except ValidationError as exc:
                for error in exc.errors():
                    errors.add(field_path((path, *error["loc"])), validation_message(error))
                continue
            check_currencies(collection, i, element, stored["currency"], errors)
            deal_line = getattr(element, "deal_line", None)
            if deal_line is not None and deal_line.deal_key not in stored.get("deals", {}):
                errors.add(f"{path}.deal_line.deal_key", f"{shown(deal_line.deal_key)} is not a key of deals")
            adds.append(element)
            continue
        entry = by_public_id.get(raw["id"]) if isinstance(raw["id"], str) else None
        if entry is None:
            errors.add(f"{path}.id", f"no {_SINGULAR[collection]} with id {shown(raw['id'])} in this order")
            continue
        keys = set(raw) - {"id"}
        if keys == {"deleted"}:
            if raw["deleted"] is not True:
                errors.add(f"{path}.deleted", "can only be true: a deleted element stays deleted")
            else:
                entry["deleted"] = True
        elif keys == {"private_ref"}:
            ref = raw["private_ref"]
            try:
                ref = parse_private_ref(ref) if ref is not None else None
            except WireError as exc:
                errors.add(f"{path}.private_ref", str(exc))
                continue
            if ref is None:
                refs.pop(str(entry["id"]), None)
            else:
                refs[str(entry["id"])] = ref
        else:
            errors.add(
                path,
                "elements cannot be modified: to change one, delete it and add a new one; "
                "send only id and deleted true, only id and private_ref, or a new element without id",
            )
    return adds
