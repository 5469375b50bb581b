"""A catalog's content (spec 2.4, decisions.md "Catalogs"): the upload checked, every error
named by its path, and turned into the read shape with generated ids.

One pass over the upload checks each entity's fields and builds its read shape; a second
checks what points somewhere (`parent_ref`, `category_ref`, `option_list_refs`, deal line
sku refs, `variant_refs`, `image_ids`) and what must be unique. Ids are handed out only once
the whole upload is valid, so a refused upload costs no id and changes nothing.

Hot path: a realistic upload has 10,000 products, so each field is looked at once, absent
optional fields cost one dict lookup, and errors are collected, never raised per field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from comptoir.errors import FieldError
from comptoir.kit.custom_fields import check_size, parse_custom_fields
from comptoir.kit.decimals import parse_decimal, render_decimal
from comptoir.kit.dow import parse_dow
from comptoir.kit.money import parse_money, render_money
from comptoir.kit.text import too_long
from comptoir.kit.times import parse_date, parse_hhmm
from comptoir.kit.units import parse_volume, parse_weight
from comptoir.kit.wire import WireError, shown

SECTIONS = ("variants", "categories", "products", "option_lists", "deals", "discounts", "charges")
NAME_MAX, TEXT_MAX = 255, 10_000
BARCODE = re.compile(r"\d{8}|\d{12}|\d{13}", re.ASCII)
PRICING_EFFECTS = ("unchanged", "fixed_price", "price_off", "percentage_off")
DISCOUNT_EFFECTS = ("price_off", "percentage_off")
CHARGE_TYPES = ("delivery", "payment_fee", "tip", "tax", "other")
SERVICE_TYPES = ("delivery", "collection", "eat_in")
TAX_KEYS = ("delivery", "collection", "eat_in")
NUTRITION_DECIMALS = ("energy_kcal", "fat_g", "saturated_fat_g", "carbohydrates_g", "sugars_g", "protein_g", "salt_g")
OVERRIDE_CONTEXTS = ("variant_refs", "dow", "start_time", "end_time", "start_date", "end_date", "service_types")
OVERRIDE_CONTEXTS += ("service_type_refs",)
HUNDRED, ZERO = Decimal(100), Decimal(0)


class Invalid(Exception):
    """The upload breaks the rules; `errors` names every problem with its path."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__(f"{len(errors)} error(s)")
        self.errors = errors


@dataclass
class Content:
    """The read shape of `data`, its entities waiting for their ids, and what other
    features need (inventory refs, images in use)."""

    data: dict[str, list[Any]]
    pending: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # kind -> read dicts needing an id
    sku_refs: set[str] = field(default_factory=set)
    option_refs: set[str] = field(default_factory=set)
    image_ids: set[str] = field(default_factory=set)

    def counts(self) -> dict[str, int]:
        return {kind: len(items) for kind, items in self.pending.items()}


# --- field readers ------------------------------------------------------------------------


class _Check:
    """Reads fields of upload objects, collecting errors at their paths."""

    def __init__(self, currency: str) -> None:
        self.currency = currency
        self.errors: list[FieldError] = []
        # Text already checked, by its value: how a price or a decimal reads back.
        self.read_back: dict[Any, str] = {}

    def add(self, path: str, message: str) -> None:
        self.errors.append(FieldError(path, message))

    def obj(self, path: str, value: Any) -> dict[str, Any] | None:
        if isinstance(value, dict):
            return value
        self.add(path, f"must be an object, not {shown(value)}")
        return None

    def nested(self, obj: dict[str, Any], path: str, key: str) -> tuple[dict[str, Any] | None, str]:
        """An optional object field and its path (None when absent or not an object)."""
        value = obj.get(key)
        path = f"{path}.{key}"
        return (None if value is None else self.obj(path, value)), path

    def array(self, path: str, value: Any) -> list[Any]:
        if value is None:
            return []
        if isinstance(value, list):
            return value
        self.add(path, f"must be an array, not {shown(value)}")
        return []

    def text(self, obj: dict[str, Any], path: str, key: str, *, required: bool = False, limit: int = NAME_MAX) -> Any:
        value = obj.get(key)
        if value is None:
            if required:
                self.add(f"{path}.{key}", "is required")
            return None
        if not isinstance(value, str):
            self.add(f"{path}.{key}", f"must be a string, not {shown(value)}")
            return None
        if required and not value.strip():
            self.add(f"{path}.{key}", "must not be empty")
        elif len(value) > limit:
            self.add(f"{path}.{key}", too_long(value, limit) or "")
        return value

    def required_array(self, obj: dict[str, Any], path: str, key: str, what: str) -> list[Any]:
        """An array that must hold at least one `what`."""
        value = obj.get(key)
        if value is None or value == []:
            self.add(f"{path}.{key}", f"must hold at least one {what}")
        return self.array(f"{path}.{key}", value)

    def strings(self, obj: dict[str, Any], path: str, key: str) -> list[str]:
        value = obj.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.add(f"{path}.{key}", f"must be an array of strings, not {shown(value)}")
            return []
        for i, item in enumerate(value):
            if not isinstance(item, str):
                self.add(f"{path}.{key}[{i}]", f"must be a string, not {shown(item)}")
            elif len(item) > NAME_MAX:
                self.add(f"{path}.{key}[{i}]", too_long(item, NAME_MAX) or "")
        return value

    def parsed(
        self, obj: dict[str, Any], path: str, key: str, parse: Callable[[Any], Any], required: bool = False
    ) -> Any:
        value = obj.get(key)
        if value is None:
            if required:
                self.add(f"{path}.{key}", "is required")
            return None
        try:
            return parse(value)
        except WireError as exc:
            self.add(f"{path}.{key}", str(exc))
            return None

    def money(self, obj: dict[str, Any], path: str, key: str, *, required: bool = False) -> str | None:
        value = obj.get(key)
        known = self.read_back.get(value) if type(value) is str else None  # a catalog repeats its prices
        if known is not None:
            return known
        money = self.parsed(obj, path, key, parse_money, required)
        if money is None:
            return None
        if money.currency != self.currency:
            self.add(f"{path}.{key}", f"must be in the account's currency, {self.currency} (not {money.currency})")
            return render_money(money)
        rendered = self.read_back[value] = render_money(money)
        return rendered

    def decimal(self, obj: dict[str, Any], path: str, key: str, *, low: Decimal = ZERO) -> str | None:
        """A decimal of at least `low` (0 unless said), read back by the decimals rule."""
        value = obj.get(key)
        known = self.read_back.get(("decimal", value)) if type(value) is str else None
        if known is not None:
            return known
        parsed = self.parsed(obj, path, key, parse_decimal)
        if parsed is None:
            return None
        if parsed < low:
            self.add(f"{path}.{key}", f"must be at least {low}")
            return render_decimal(parsed)
        rendered = render_decimal(parsed)
        if type(value) is str and low == ZERO:
            self.read_back[("decimal", value)] = rendered
        return rendered

    def integer(self, obj: dict[str, Any], path: str, key: str, *, low: int = 0) -> int | None:
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < low or value > 2**31 - 1:
            self.add(f"{path}.{key}", f"must be an integer of at least {low}, not {shown(value)}")
            return None
        return value

    def boolean(self, obj: dict[str, Any], path: str, key: str, default: bool) -> bool:
        value = obj.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add(f"{path}.{key}", f"must be true or false, not {shown(value)}")
            return default
        return value

    def choice(self, obj: dict[str, Any], path: str, key: str, choices: tuple[str, ...], required: bool) -> Any:
        value = obj.get(key)
        if value is None:
            if required:
                self.add(f"{path}.{key}", f"is required (one of {', '.join(choices)})")
            return None
        if value not in choices:
            self.add(f"{path}.{key}", f"must be one of {', '.join(choices)}, not {shown(value)}")
            return None
        return value


# --- entities -----------------------------------------------------------------------------


class _Build:
    def __init__(self, currency: str) -> None:
        self.c = _Check(currency)
        # (path, ref) of what must resolve once every entity is read
        self.variant_uses: list[tuple[str, str]] = []
        self.image_uses: list[tuple[str, str]] = []

    # shared shapes

    def variant_refs(self, obj: dict[str, Any], path: str) -> list[str]:
        refs = self.c.strings(obj, path, "variant_refs")
        self.variant_uses.extend(
            (f"{path}.variant_refs[{i}]", ref) for i, ref in enumerate(refs) if isinstance(ref, str)
        )
        return refs

    def image_ids(self, obj: dict[str, Any], path: str) -> list[str]:
        found = self.c.strings(obj, path, "image_ids")
        self.image_uses.extend((f"{path}.image_ids[{i}]", ref) for i, ref in enumerate(found) if isinstance(ref, str))
        return found

    def restrictions(self, obj: dict[str, Any], path: str) -> dict[str, Any] | None:
        r, path = self.c.nested(obj, path, "restrictions")
        if r is None:
            return None
        c = self.c
        return {
            "enabled": c.boolean(r, path, "enabled", True),
            **self.context(r, path),
            "min_order_amount": c.money(r, path, "min_order_amount"),
            "max_per_order": c.integer(r, path, "max_per_order", low=1),
            "max_per_customer": c.integer(r, path, "max_per_customer", low=1),
        }

    def context(self, obj: dict[str, Any], path: str) -> dict[str, Any]:
        """When and where a restriction or a price override applies (decisions.md)."""
        c = self.c
        return {
            "variant_refs": self.variant_refs(obj, path),
            "dow": c.parsed(obj, path, "dow", parse_dow),
            "start_time": c.parsed(obj, path, "start_time", parse_hhmm),
            "end_time": c.parsed(obj, path, "end_time", parse_hhmm),
            "start_date": _iso(c.parsed(obj, path, "start_date", parse_date)),
            "end_date": _iso(c.parsed(obj, path, "end_date", parse_date)),
            "service_types": self.service_types(obj, path, "service_types"),
            "service_type_refs": c.strings(obj, path, "service_type_refs"),
        }

    def service_types(self, obj: dict[str, Any], path: str, key: str) -> list[str]:
        values = self.c.strings(obj, path, key)
        for i, value in enumerate(values):
            if isinstance(value, str) and value not in SERVICE_TYPES:
                self.c.add(f"{path}.{key}[{i}]", f"must be one of {', '.join(SERVICE_TYPES)}, not {shown(value)}")
        return values

    def price_overrides(self, obj: dict[str, Any], path: str) -> list[dict[str, Any]]:
        out = []
        c = self.c
        for i, raw in enumerate(c.array(f"{path}.price_overrides", obj.get("price_overrides"))):
            here = f"{path}.price_overrides[{i}]"
            o = c.obj(here, raw)
            if o is None:
                continue
            override = {"price": c.money(o, here, "price", required=True), **self.context(o, here)}
            if not any(override[key] for key in OVERRIDE_CONTEXTS):
                c.add(here, f"needs a context besides the price: one of {', '.join(OVERRIDE_CONTEXTS)}")
            out.append(override)
        return out

    def tags(self, obj: dict[str, Any], path: str) -> list[str]:
        return self.c.strings(obj, path, "tags")

    # entities

    def variant(self, raw: Any, path: str) -> dict[str, Any] | None:
        v = self.c.obj(path, raw)
        if v is None:
            return None
        return {"ref": self.c.text(v, path, "ref", required=True), "name": self.c.text(v, path, "name", required=True)}

    def category(self, raw: Any, path: str) -> dict[str, Any] | None:
        o = self.c.obj(path, raw)
        if o is None:
            return None
        c = self.c
        return {
            "id": None,
            "ref": c.text(o, path, "ref", required=True),
            "parent_id": None,
            "parent_ref": c.text(o, path, "parent_ref"),
            "name": c.text(o, path, "name", required=True),
            "description": c.text(o, path, "description", limit=TEXT_MAX),
            "tags": self.tags(o, path),
            "image_ids": self.image_ids(o, path),
        }

    def product(self, raw: Any, path: str) -> dict[str, Any] | None:
        o = self.c.obj(path, raw)
        if o is None:
            return None
        c = self.c
        skus = []
        names: dict[str | None, int] = {}
        for i, sku_raw in enumerate(c.required_array(o, path, "skus", "sku")):
            sku = self.sku(sku_raw, f"{path}.skus[{i}]")
            if sku is None:
                continue
            name = sku["name"]
            if name in names:  # catalog rule 1
                first = names[name]
                message = (
                    f"only one sku of a product may have no name (skus[{first}] has none)"
                    if name is None
                    else f"{shown(name)} is already the name of skus[{first}] of this product"
                )
                c.add(f"{path}.skus[{i}].name", message)
            else:
                names[name] = i
            skus.append(sku)
        get = o.get
        return {
            "id": None,
            "ref": c.text(o, path, "ref"),
            "category_id": None,
            "category_ref": c.text(o, path, "category_ref", required=True),
            "name": c.text(o, path, "name", required=True),
            "description": c.text(o, path, "description", limit=TEXT_MAX),
            "tags": c.strings(o, path, "tags") if get("tags") is not None else [],
            "nutrition": self.nutrition(o, path) if get("nutrition") is not None else None,
            "tax_rate": self.tax_rate(o, path) if get("tax_rate") is not None else None,
            "image_ids": self.image_ids(o, path) if get("image_ids") is not None else [],
            "skus": skus,
        }

    def nutrition(self, obj: dict[str, Any], path: str) -> dict[str, Any] | None:
        n, path = self.c.nested(obj, path, "nutrition")
        if n is None:
            return None
        out: dict[str, Any] = {
            "legal_name": self.c.text(n, path, "legal_name", limit=TEXT_MAX),
            "allergens": self.c.strings(n, path, "allergens"),
        }
        for key in NUTRITION_DECIMALS:
            out[key] = self.c.decimal(n, path, key) if n.get(key) is not None else None
        return out

    def tax_rate(self, obj: dict[str, Any], path: str) -> dict[str, str | None] | None:
        t, path = self.c.nested(obj, path, "tax_rate")
        if t is None:
            return None
        missing = [key for key in TAX_KEYS if t.get(key) is None]
        if missing:  # catalog rule 3: all three keys, or no tax_rate at all
            self.c.add(
                path, f"must have all of delivery, collection and eat_in, or be omitted (missing {', '.join(missing)})"
            )
        return {key: self.c.decimal(t, path, key) for key in TAX_KEYS}

    def sku(self, raw: Any, path: str) -> dict[str, Any] | None:
        o = self.c.obj(path, raw)
        if o is None:
            return None
        c, get = self.c, o.get
        barcodes = c.strings(o, path, "barcodes") if get("barcodes") is not None else []
        for i, code in enumerate(barcodes):
            if isinstance(code, str) and not BARCODE.fullmatch(code):  # catalog rule 2
                c.add(f"{path}.barcodes[{i}]", f"{shown(code)} is not a barcode (8, 12 or 13 digits)")
        # The common case first: most fields of most skus are absent.
        return {
            "id": None,
            "ref": c.text(o, path, "ref"),
            "name": c.text(o, path, "name"),
            "product_id": None,
            "restrictions": self.restrictions(o, path) if get("restrictions") is not None else None,
            "price": c.money(o, path, "price", required=True),
            "price_overrides": self.price_overrides(o, path) if get("price_overrides") is not None else [],
            "option_list_ids": [],
            "option_list_refs": c.strings(o, path, "option_list_refs") if get("option_list_refs") is not None else [],
            "tags": c.strings(o, path, "tags") if get("tags") is not None else [],
            "barcodes": barcodes,
            "custom_fields": self.custom_fields(get("custom_fields"), path) if get("custom_fields") is not None else {},
            "weight": c.parsed(o, path, "weight", parse_weight) if get("weight") is not None else None,
            "volume": c.parsed(o, path, "volume", parse_volume) if get("volume") is not None else None,
            "nb_servings": c.integer(o, path, "nb_servings", low=1) if get("nb_servings") is not None else None,
        }

    def custom_fields(self, value: Any, path: str) -> dict[str, Any]:
        flat = isinstance(value, dict) and not any(isinstance(item, (dict, list)) for item in value.values())
        try:
            fields = value if flat else parse_custom_fields(value)
            check_size(fields)
        except WireError as exc:
            self.c.add(f"{path}.custom_fields", str(exc))
            return {}
        return fields

    def option_list(self, raw: Any, path: str) -> dict[str, Any] | None:
        o = self.c.obj(path, raw)
        if o is None:
            return None
        c = self.c
        kind = c.choice(o, path, "type", ("single", "multiple"), required=False)
        low = c.integer(o, path, "min_selections")
        high = c.integer(o, path, "max_selections")
        if kind is not None:  # catalog rule 5: the deprecated type, unless min/max are given
            low = low if "min_selections" in o else (1 if kind == "single" else 0)
            high = high if "max_selections" in o else (1 if kind == "single" else None)
        low = low or 0
        if high is not None and low > high:
            c.add(f"{path}.min_selections", f"must not exceed max_selections ({high})")
        listed = c.required_array(o, path, "options", "option")
        options = [opt for i, r in enumerate(listed) if (opt := self.option(r, f"{path}.options[{i}]")) is not None]
        defaults = sum(1 for opt in options if opt["default"])
        if high is not None and defaults > high:  # catalog rule 4
            c.add(f"{path}.options", f"{defaults} options are default, more than max_selections ({high})")
        return {
            "id": None,
            "ref": c.text(o, path, "ref", required=True),
            "name": c.text(o, path, "name", required=True),
            "min_selections": low,
            "max_selections": high,
            "type": "single" if high == 1 else "multiple",
            "tags": self.tags(o, path),
            "options": options,
        }

    def option(self, raw: Any, path: str) -> dict[str, Any] | None:
        o = self.c.obj(path, raw)
        if o is None:
            return None
        c = self.c
        price = c.money(o, path, "price")
        return {
            "id": None,
            "ref": c.text(o, path, "ref"),
            "option_list_id": None,
            "name": c.text(o, path, "name", required=True),
            "restrictions": self.restrictions(o, path),
            "price": price if price is not None else f"0.00 {c.currency}",  # decisions.md: missing is free
            "price_overrides": self.price_overrides(o, path),
            "default": c.boolean(o, path, "default", False),
            "tags": self.tags(o, path),
        }

    def deal(self, raw: Any, path: str) -> dict[str, Any] | None:
        o = self.c.obj(path, raw)
        if o is None:
            return None
        c = self.c
        listed = c.required_array(o, path, "lines", "line")
        lines = [self.deal_line(r, f"{path}.lines[{i}]") for i, r in enumerate(listed)]
        return {
            "id": None,
            "ref": c.text(o, path, "ref"),
            "category_id": None,
            "category_ref": c.text(o, path, "category_ref"),
            "name": c.text(o, path, "name", required=True),
            "description": c.text(o, path, "description", limit=TEXT_MAX),
            "coupon_codes": c.strings(o, path, "coupon_codes"),
            "restrictions": self.restrictions(o, path),
            "tags": self.tags(o, path),
            "image_ids": self.image_ids(o, path),
            "lines": [line for line in lines if line is not None],
        }

    def deal_line(self, raw: Any, path: str) -> dict[str, Any] | None:
        o = self.c.obj(path, raw)
        if o is None:
            return None
        c = self.c
        skus = []
        for i, item in enumerate(c.required_array(o, path, "skus", "sku")):
            here = f"{path}.skus[{i}]"
            s = c.obj(here, item)
            if s is not None:
                skus.append(
                    {
                        "id": None,
                        "ref": c.text(s, here, "ref", required=True),
                        "extra_charge": c.money(s, here, "extra_charge"),
                    }
                )
        effect = c.choice(o, path, "pricing_effect", PRICING_EFFECTS, required=True)
        return {
            "label": c.text(o, path, "label"),
            "skus": skus,
            "pricing_effect": effect,
            "pricing_value": self.pricing_value(o, path, effect),
        }

    def pricing_value(self, obj: dict[str, Any], path: str, effect: str | None) -> str | None:
        if effect in ("fixed_price", "price_off"):
            return self.c.money(obj, path, "pricing_value", required=True)
        if effect == "percentage_off":
            value = self.c.parsed(obj, path, "pricing_value", parse_decimal, required=True)
            if value is None:
                return None
            if not Decimal(0) <= value <= HUNDRED:
                self.c.add(f"{path}.pricing_value", "must be a percentage between 0 and 100")
            return render_decimal(value)
        if effect == "unchanged" and obj.get("pricing_value") is not None:
            self.c.add(f"{path}.pricing_value", "must be omitted when pricing_effect is unchanged")
        return None

    def discount(self, raw: Any, path: str) -> dict[str, Any] | None:
        o = self.c.obj(path, raw)
        if o is None:
            return None
        c = self.c
        effect = c.choice(o, path, "pricing_effect", DISCOUNT_EFFECTS, required=True)
        return {
            "id": None,
            "ref": c.text(o, path, "ref"),
            "name": c.text(o, path, "name", required=True),
            "description": c.text(o, path, "description", limit=TEXT_MAX),
            "restrictions": self.restrictions(o, path),
            "coupon_codes": c.strings(o, path, "coupon_codes"),
            "pricing_effect": effect,
            "pricing_value": self.pricing_value(o, path, effect),
            "image_ids": self.image_ids(o, path),
        }

    def charge(self, raw: Any, path: str) -> dict[str, Any] | None:
        o = self.c.obj(path, raw)
        if o is None:
            return None
        c = self.c
        return {
            "id": None,
            "ref": c.text(o, path, "ref"),
            "name": c.text(o, path, "name", required=True),
            "type": c.choice(o, path, "type", CHARGE_TYPES, required=True),
            "price": c.money(o, path, "price"),  # null: a variable amount
            "restrictions": self.restrictions(o, path),
        }


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _unique(check: _Check, items: Iterable[tuple[str, Any]], what: str) -> dict[str, int]:
    """ref -> index of its first holder; a repeated ref is an error at the repeat."""
    seen: dict[str, int] = {}
    for i, (path, ref) in enumerate(items):
        if not isinstance(ref, str):
            continue
        if ref in seen:
            check.add(path, f"{shown(ref)} is already the ref of another {what}")
        else:
            seen[ref] = i
    return seen


# --- the whole upload ---------------------------------------------------------------------


def read_upload(data: Any, currency: str, images: set[str]) -> Content:
    """The read shape of an uploaded `data` (ids still to come: `assign_ids`); raises
    Invalid naming every error. `images`: ids of the catalog's images."""
    build = _Build(currency)
    c = build.c
    if c.obj("data", data) is None:
        raise Invalid(c.errors)
    sections: dict[str, list[Any]] = {}
    makers = {
        "variants": build.variant,
        "categories": build.category,
        "products": build.product,
        "option_lists": build.option_list,
        "deals": build.deal,
        "discounts": build.discount,
        "charges": build.charge,
    }
    for section in SECTIONS:
        make = makers[section]
        items = c.array(f"data.{section}", data.get(section))
        sections[section] = [make(raw, f"data.{section}[{i}]") for i, raw in enumerate(items)]

    def refs(section: str) -> list[tuple[str, Any]]:
        return [(f"data.{section}[{i}].ref", e["ref"] if e else None) for i, e in enumerate(sections[section])]

    variants = _unique(c, refs("variants"), "variant")
    categories = _unique(c, refs("categories"), "category")
    option_lists = _unique(c, refs("option_lists"), "option list")
    for path, ref in build.variant_uses:
        if ref not in variants:
            c.add(path, f"no variant has the ref {shown(ref)}")
    for path, ref in build.image_uses:
        if ref not in images:
            c.add(path, f"no image of this catalog has the id {shown(ref)}")

    _check_tree(c, sections["categories"], categories)
    sku_refs: set[str] = set()
    for i, product in enumerate(sections["products"]):
        if product is None:
            continue
        ref = product["category_ref"]
        if isinstance(ref, str) and ref not in categories:
            c.add(f"data.products[{i}].category_ref", f"no category has the ref {shown(ref)}")
        for j, sku in enumerate(product["skus"]):
            if isinstance(sku["ref"], str):
                sku_refs.add(sku["ref"])
            for k, list_ref in enumerate(sku["option_list_refs"]):
                if isinstance(list_ref, str) and list_ref not in option_lists:
                    c.add(
                        f"data.products[{i}].skus[{j}].option_list_refs[{k}]",
                        f"no option list has the ref {shown(list_ref)}",
                    )
    for i, deal in enumerate(sections["deals"]):
        if deal is None:
            continue
        ref = deal["category_ref"]
        if isinstance(ref, str) and ref not in categories:
            c.add(f"data.deals[{i}].category_ref", f"no category has the ref {shown(ref)}")
        for j, line in enumerate(deal["lines"]):
            for k, item in enumerate(line["skus"]):
                if isinstance(item["ref"], str) and item["ref"] not in sku_refs:
                    c.add(f"data.deals[{i}].lines[{j}].skus[{k}].ref", f"no sku has the ref {shown(item['ref'])}")
    if c.errors:
        raise Invalid(c.errors)

    option_refs = {
        opt["ref"]
        for option_list in sections["option_lists"]
        for opt in option_list["options"]
        if opt["ref"] is not None
    }
    content = Content(
        data=sections, sku_refs=sku_refs, option_refs=option_refs, image_ids={ref for _, ref in build.image_uses}
    )
    content.data["categories"] = _depth_first(sections["categories"])
    content.pending = {
        "category": content.data["categories"],
        "product": sections["products"],
        "sku": [sku for product in sections["products"] for sku in product["skus"]],
        "option_list": sections["option_lists"],
        "option": [opt for option_list in sections["option_lists"] for opt in option_list["options"]],
        "deal": sections["deals"],
        "discount": sections["discounts"],
        "charge": sections["charges"],
    }
    return content


def _check_tree(c: _Check, categories: list[Any], index: dict[str, int]) -> None:
    """Every parent_ref names a category, and no category is its own ancestor."""
    for i, category in enumerate(categories):
        if category is None or category["parent_ref"] is None:
            continue
        parent = category["parent_ref"]
        if parent not in index:
            c.add(f"data.categories[{i}].parent_ref", f"no category has the ref {shown(parent)}")
            continue
        seen, at = {i}, index[parent]
        while True:
            if at in seen:
                c.add(f"data.categories[{i}].parent_ref", "categories must not be their own ancestor")
                break
            seen.add(at)
            above = categories[at]["parent_ref"] if categories[at] else None
            if above is None or above not in index:
                break
            at = index[above]


def _depth_first(categories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """spec 2.4 rule 4: each category followed by its children, in upload order."""
    children: dict[str | None, list[dict[str, Any]]] = {}
    for category in categories:
        children.setdefault(category["parent_ref"], []).append(category)
    ordered: list[dict[str, Any]] = []
    stack = list(reversed(children.get(None, [])))
    while stack:
        category = stack.pop()
        ordered.append(category)
        stack.extend(reversed(children.get(category["ref"], [])))
    return ordered


def assign_ids(content: Content, new_ids: dict[str, list[str]]) -> None:
    """Give every entity its public id (`new_ids[kind]`, as many as `content.counts()`),
    then fill in the ids that refs point to."""
    for kind, items in content.pending.items():
        for item, public_id in zip(items, new_ids[kind], strict=True):
            item["id"] = public_id
    data = content.data
    category_ids = {category["ref"]: category["id"] for category in data["categories"]}
    for category in data["categories"]:
        category["parent_id"] = category_ids.get(category["parent_ref"])
    list_ids = {option_list["ref"]: option_list["id"] for option_list in data["option_lists"]}
    for option_list in data["option_lists"]:
        for opt in option_list["options"]:
            opt["option_list_id"] = option_list["id"]
    sku_ids: dict[str, str] = {}
    for product in data["products"]:
        product["category_id"] = category_ids[product["category_ref"]]
        for sku in product["skus"]:
            sku["product_id"] = product["id"]
            sku["option_list_ids"] = [list_ids[ref] for ref in sku["option_list_refs"]]
            if sku["ref"] is not None:
                sku_ids.setdefault(sku["ref"], sku["id"])
    for deal in data["deals"]:
        deal["category_id"] = category_ids.get(deal["category_ref"])
        for line in deal["lines"]:
            for item in line["skus"]:
                item["id"] = sku_ids[item["ref"]]
