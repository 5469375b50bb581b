"""A catalog's content (spec 2.4, docs/api/catalogs.md "Content"): the upload checked, every error
named by its path, and turned into the read shape with generated ids.

One pass over the upload checks each entity's fields and builds its read shape; a second
checks what points somewhere (`parent_ref`, `category_ref`, `option_list_refs`, deal line
sku refs, `variant_refs`, `image_ids`) and what must be unique. Ids are handed out only once
the whole upload is valid, so a refused upload costs no id and changes nothing.

Hot path: a realistic upload has 10,000 products, so each field is looked at once, absent
optional fields cost one dict lookup, and errors are collected, never raised per field.

`content_fields` reads one field, `content_entities` one entity; here, the whole upload.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from comptoir.catalogs.content_entities import EntityReader
from comptoir.catalogs.content_fields import FieldReader
from comptoir.errors import FieldError
from comptoir.kit.jsonutil import dumps_str
from comptoir.kit.wire import shown

SECTIONS = ("variants", "categories", "products", "option_lists", "deals", "discounts", "charges")
EMPTY_DATA = dumps_str({section: [] for section in SECTIONS})  # the stored `data` of a catalog without content


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


def _unique(check: FieldReader, items: Iterable[tuple[str, Any]], what: str) -> dict[str, int]:
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
    build = EntityReader(currency)
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
        path = f"data.{section}"
        sections[section] = list(build.each(c.array(path, data.get(section)), path, makers[section]))

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
        _check_category(c, f"data.products[{i}]", product, categories)
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
        _check_category(c, f"data.deals[{i}]", deal, categories)
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


def _check_category(c: FieldReader, path: str, entity: dict[str, Any], index: dict[str, int]) -> None:
    """A product's or deal's `category_ref`, when given, names a category."""
    ref = entity["category_ref"]
    if isinstance(ref, str) and ref not in index:
        c.add(f"{path}.category_ref", f"no category has the ref {shown(ref)}")


def _check_tree(c: FieldReader, categories: list[Any], index: dict[str, int]) -> None:
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
