"""The entities of a catalog upload (`catalogs.content`): each category, product, sku,
option list, option, deal, discount and charge checked field by field (`FieldReader`) and
turned into its read shape, its ids still to come. What points elsewhere (`variant_refs`,
`image_ids`) is noted here and resolved once the whole upload is read.

Hot path: absent optional fields of a product or sku cost one dict lookup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from comptoir.catalogs.fields import TEXT_MAX, FieldReader
from comptoir.kit.custom_fields import check_size, parse_custom_fields
from comptoir.kit.decimals import parse_decimal, render_decimal
from comptoir.kit.dow import parse_dow
from comptoir.kit.times import parse_date, parse_hhmm
from comptoir.kit.units import parse_volume, parse_weight
from comptoir.kit.wire import WireError, shown

BARCODE = re.compile(r"\d{8}|\d{12}|\d{13}", re.ASCII)
PRICING_EFFECTS = ("unchanged", "fixed_price", "price_off", "percentage_off")
DISCOUNT_EFFECTS = ("price_off", "percentage_off")
CHARGE_TYPES = ("delivery", "payment_fee", "tip", "tax", "other")
SERVICE_TYPES = ("delivery", "collection", "eat_in")
TAX_KEYS = ("delivery", "collection", "eat_in")
NUTRITION_DECIMALS = ("energy_kcal", "fat_g", "saturated_fat_g", "carbohydrates_g", "sugars_g", "protein_g", "salt_g")
OVERRIDE_CONTEXTS = (
    "variant_refs", "dow", "start_time", "end_time", "start_date", "end_date", "service_types", "service_type_refs",
)  # fmt: skip
HUNDRED = Decimal(100)
# An entity's reader: its checked object and path -> its read shape.
Entity = Callable[[dict[str, Any], str], dict[str, Any]]


class EntityReader:
    def __init__(self, currency: str) -> None:
        self.c = FieldReader(currency=currency)
        # (path, ref) of what must resolve once every entity is read
        self.variant_uses: list[tuple[str, str]] = []
        self.image_uses: list[tuple[str, str]] = []

    def each(self, values: list[Any], path: str, make: Entity) -> Iterator[dict[str, Any] | None]:
        """Each of `values` (at `path[i]`) read by `make`, as it is reached (errors stay in
        upload order); None, with an error at its path, for one that is not an object."""
        obj = self.c.obj
        for i, raw in enumerate(values):
            here = f"{path}[{i}]"
            o = obj(here, raw)
            yield None if o is None else make(o, here)

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
        """When and where a restriction or a price override applies
        (docs/api/catalogs.md "Restrictions and price overrides")."""
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

    def variant(self, o: dict[str, Any], path: str) -> dict[str, Any]:
        return {"ref": self.c.text(o, path, "ref", required=True), "name": self.c.text(o, path, "name", required=True)}

    def category(self, o: dict[str, Any], path: str) -> dict[str, Any]:
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

    def product(self, o: dict[str, Any], path: str) -> dict[str, Any]:
        c = self.c
        skus = []
        names: dict[str | None, int] = {}
        for i, sku in enumerate(self.each(c.required_array(o, path, "skus", "sku"), f"{path}.skus", self.sku)):
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

    def sku(self, o: dict[str, Any], path: str) -> dict[str, Any]:
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
        # docs/api/conventions.md "Custom fields": a key set to null is no key
        return {key: item for key, item in fields.items() if item is not None} if None in fields.values() else fields

    def option_list(self, o: dict[str, Any], path: str) -> dict[str, Any]:
        c = self.c
        kind = c.choice(o, path, "type", ("single", "multiple"), required=False)
        low = c.integer(o, path, "min_selections")
        high = c.integer(o, path, "max_selections")
        if kind is not None:  # catalog rule 5: the deprecated type, unless min/max are given
            # a null max_selections is given (unlimited); a null min_selections is not
            low = low if o.get("min_selections") is not None else (1 if kind == "single" else 0)
            high = high if "max_selections" in o else (1 if kind == "single" else None)
        low = low or 0
        if high is not None and low > high:
            c.add(f"{path}.min_selections", f"must not exceed max_selections ({high})")
        listed = c.required_array(o, path, "options", "option")
        options = [opt for opt in self.each(listed, f"{path}.options", self.option) if opt is not None]
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

    def option(self, o: dict[str, Any], path: str) -> dict[str, Any]:
        c = self.c
        price = c.money(o, path, "price")
        return {
            "id": None,
            "ref": c.text(o, path, "ref"),
            "option_list_id": None,
            "name": c.text(o, path, "name", required=True),
            "restrictions": self.restrictions(o, path),
            # docs/api/catalogs.md "Options and prices": missing is free
            "price": price if price is not None else f"0.00 {c.currency}",
            "price_overrides": self.price_overrides(o, path),
            "default": c.boolean(o, path, "default", False),
            "tags": self.tags(o, path),
        }

    def deal(self, o: dict[str, Any], path: str) -> dict[str, Any]:
        c = self.c
        listed = c.required_array(o, path, "lines", "line")
        lines = [line for line in self.each(listed, f"{path}.lines", self.deal_line) if line is not None]
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
            "lines": lines,
        }

    def deal_line(self, o: dict[str, Any], path: str) -> dict[str, Any]:
        c = self.c
        listed = c.required_array(o, path, "skus", "sku")
        skus = [sku for sku in self.each(listed, f"{path}.skus", self.deal_sku) if sku is not None]
        effect = c.choice(o, path, "pricing_effect", PRICING_EFFECTS, required=True)
        return {
            "label": c.text(o, path, "label"),
            "skus": skus,
            "pricing_effect": effect,
            "pricing_value": self.pricing_value(o, path, effect),
        }

    def deal_sku(self, o: dict[str, Any], path: str) -> dict[str, Any]:
        return {
            "id": None,
            "ref": self.c.text(o, path, "ref", required=True),
            "extra_charge": self.c.money(o, path, "extra_charge"),
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

    def discount(self, o: dict[str, Any], path: str) -> dict[str, Any]:
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

    def charge(self, o: dict[str, Any], path: str) -> dict[str, Any]:
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
