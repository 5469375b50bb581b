"""A catalog's content (spec 2.4, docs/api/catalogs.md "Content"): the upload checked, every error
named by its path, and turned into the read shape with generated ids.

One pass over the upload checks each entity's fields and builds its read shape; a second
checks what points somewhere (`parent_ref`, `category_ref`, `option_list_refs`, deal line
sku refs, `variant_refs`, `image_ids`) and what must be unique. Ids are handed out only once
the whole upload is valid, so a refused upload costs no id and changes nothing.

Hot path: a realistic upload has 10,000 products, so each field is looked at once, absent
optional fields cost one dict lookup, and errors are collected, never raised per field.

`fields` reads one field, `content_entities` one entity; here, the whole upload.

StreamedData (docs/architecture.md "Request bodies"): an API upload is read while its body
arrives. `Upload.entity` reads each entity of a section as soon as it is complete (the
same EntityReader as for an upload given whole: `read_upload` feeds it every entity too),
and `read_upload` then makes the checks across entities. The currency a price needs is the
token's account's (a catalog in the token's reach belongs to its account), so every check of
an entity runs while streaming; the catalog's images are known only once it is found, so
`image_ids` are resolved after, with the other references. Once MAX_ERRORS errors are named
the upload is refused: the entities that follow are read to count their errors, then dropped
(nothing more is kept), and the checks across entities are not made.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from comptoir.catalogs.content_entities import EntityReader
from comptoir.catalogs.fields import FieldReader
from comptoir.errors import MAX_ERRORS, FieldErrors
from comptoir.kit import ids
from comptoir.kit.jsonstream import REFUSED, Path, Shape
from comptoir.kit.jsonutil import dumps_str
from comptoir.kit.wire import shown

SECTIONS = ("variants", "categories", "products", "option_lists", "deals", "discounts", "charges")
# The entity of each section (its reader's method, its kind of id)
_ENTITY = dict(
    zip(SECTIONS, ("variant", "category", "product", "option_list", "deal", "discount", "charge"), strict=True)
)
# The kinds stored as rows, by section (skus live in their product, options in their list),
# in the order `data` is joined
ROW_KINDS = {section: kind for section, kind in _ENTITY.items() if section != "variants"}
EMPTY_DATA = dumps_str({section: [] for section in SECTIONS})  # the stored `data` of an empty catalog


class Invalid(Exception):
    """The upload breaks the rules; `errors` names the first problems with their paths and
    counts the others."""

    def __init__(self, errors: FieldErrors) -> None:
        super().__init__(f"{errors.total} error(s)")
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


class Upload:
    """The entities of an upload, each read as it comes (`entity`), for `read_upload`. Each
    section has its own EntityReader, so its errors come in section order (SECTIONS)
    whatever the order of the sections in the body."""

    def __init__(self, currency: str) -> None:
        self.currency = currency
        self.readers = {section: EntityReader(currency) for section in SECTIONS}
        self.more = 0  # errors counted by the stream (kit.jsonstream.Tally)
        self.makers = {section: getattr(self.readers[section], _ENTITY[section]) for section in SECTIONS}

    @property
    def total(self) -> int:
        return self.more + sum(reader.c.errors.total for reader in self.readers.values())

    @property
    def full(self) -> bool:
        """MAX_ERRORS errors are named: the upload is refused."""
        return sum(len(reader.c.errors.errors) for reader in self.readers.values()) >= MAX_ERRORS

    def entity(self, section: str, raw: Any, index: int) -> dict[str, Any] | None:
        """The read shape of `data.<section>[index]`; None, with an error, when not an object."""
        here = f"data.{section}[{index}]"
        o = self.readers[section].c.obj(here, raw)
        return None if o is None else self.makers[section](o, here)

    def shape(self) -> Shape:
        """How the body `{"name", "data": {<section>: [entity, ...]}}` is streamed
        (kit.jsonstream): each entity read as it completes; other keys skipped."""

        def check(section: str) -> Any:
            found = self.readers[section].c.errors

            def read(raw: Any, path: Path) -> Any:
                before = found.total
                entity = self.entity(section, raw, int(path[-1]))
                if found.total > before and self.full:
                    return REFUSED  # refused: nothing more needs keeping
                return entity

            return read

        sections: dict[str, Shape | None] = {section: Shape(items=check(section)) for section in SECTIONS}
        data = Shape(fields=sections, ignored=True, done=self._streamed)
        return Shape(fields={"name": None, "data": data}, ignored=True)

    def _streamed(self, data: dict[str, Any]) -> StreamedData:
        return StreamedData(self, data)


class StreamedData(dict[str, Any]):
    """An upload's `data` as its body streamed in: its sections hold read shapes (`Upload`)."""

    def __init__(self, upload: Upload, data: dict[str, Any]) -> None:
        super().__init__(data)
        self.upload = upload


def read_upload(data: Any, currency: str, images: set[str]) -> Content:
    """The read shape of an uploaded `data` (ids still to come: `assign_ids`); raises
    Invalid naming the errors. `images`: ids of the catalog's images."""
    streamed = isinstance(data, StreamedData)
    if isinstance(data, StreamedData) and data.upload.currency != currency:  # the token's account is the catalog's
        raise RuntimeError(f"an upload read in {data.upload.currency} for a catalog in {currency}")
    upload = data.upload if isinstance(data, StreamedData) else Upload(currency)
    c = FieldReader(currency=currency)  # the errors of the whole, in order: data, each section, across
    if c.obj("data", data) is None:
        raise Invalid(c.errors)
    sections: dict[str, list[Any]] = {}
    for section in SECTIONS:
        reader = upload.readers[section].c
        if streamed:
            sections[section] = reader.array(f"data.{section}", data.get(section))
        else:
            listed = reader.array(f"data.{section}", data.get(section))
            sections[section] = [upload.entity(section, raw, i) for i, raw in enumerate(listed)]
        c.errors.extend(reader.errors)
    c.errors.more += upload.more
    if upload.full:  # refused while streaming: what followed was not kept
        raise Invalid(c.errors)
    variant_uses = [use for section in SECTIONS for use in upload.readers[section].variant_uses]
    image_uses = [use for section in SECTIONS for use in upload.readers[section].image_uses]

    def refs(section: str) -> list[tuple[str, Any]]:
        return [(f"data.{section}[{i}].ref", e["ref"] if e else None) for i, e in enumerate(sections[section])]

    variants = _unique(c, refs("variants"), "variant")
    categories = _unique(c, refs("categories"), "category")
    option_lists = _unique(c, refs("option_lists"), "option list")
    for path, ref in variant_uses:
        if ref not in variants:
            c.add(path, f"no variant has the ref {shown(ref)}")
    for path, ref in image_uses:
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
        data=sections, sku_refs=sku_refs, option_refs=option_refs, image_ids={ref for _, ref in image_uses}
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


@dataclass(frozen=True, slots=True)
class Stored:
    """A content as it is stored: one row per entity (kind, id, position, its JSON), the whole
    `data` text made of those same JSON texts (each entity serialised once), and the refs and
    images other features look up without reading `data`."""

    rows: list[tuple[str, int, int, str]]
    data_text: str
    sku_refs: list[str]
    option_refs: list[str]
    image_ids: list[str]


EMPTY = Stored([], EMPTY_DATA, [], [], [])


def stored_form(content: Content, numbers: dict[str, list[int]]) -> Stored:
    """`content` with its new ids (`numbers`, by kind, as many as `content.counts()`), as it
    is stored (`Stored`)."""
    assign_ids(content, {kind: ids.encode_many(kind, pks) for kind, pks in numbers.items()})
    bodies = {section: [dumps_str(item) for item in content.data[section]] for section in ROW_KINDS}
    rows = [
        (kind, numbers[kind][i], i, body)
        for section, kind in ROW_KINDS.items()
        for i, body in enumerate(bodies[section])
    ]
    parts = ['{"variants":', dumps_str(content.data["variants"])]
    for section in ROW_KINDS:
        parts += [',"', section, '":[', ",".join(bodies[section]), "]"]
    data_text = "".join([*parts, "}"])
    return Stored(rows, data_text, sorted(content.sku_refs), sorted(content.option_refs), sorted(content.image_ids))
