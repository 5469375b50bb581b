"""Request and read shapes of spec 2.4 Catalog, for the OpenAPI document. The content is
checked by `catalogs.content` (every error named with its path), not by these models."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class CatalogWrite(BaseModel):
    """POST and PUT body: `name` (required on POST), and `data`, whose presence replaces all
    the content (docs/api/catalogs.md). Other keys are ignored."""

    model_config = ConfigDict(extra="ignore")

    name: Any = Field(default=None, json_schema_extra={"type": "string", "maxLength": 255})
    data: Any = Field(
        default=None,
        json_schema_extra={
            "type": "object",
            "description": "Arrays variants, categories, products, option_lists, deals, discounts, charges.",
        },
    )


class Catalog(BaseModel):
    """A catalog; `data` is omitted by lists and by `hide_data=true`."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    created_at: str
    location_id: str | None
    account_id: str | None
    data: CatalogData | None = None


# --- read shapes of what a catalog holds (spec 2.4, docs/api/catalogs.md "Read shapes") ----

JSONObject = dict[str, Any]


class _Read(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Sku(_Read):
    id: str
    ref: str | None
    name: str | None
    product_id: str
    restrictions: JSONObject | None
    price: str
    price_overrides: list[JSONObject]
    option_list_ids: list[str]
    option_list_refs: list[str]
    tags: list[str]
    barcodes: list[str]
    custom_fields: JSONObject
    weight: str | None
    volume: str | None
    nb_servings: int | None


class Category(_Read):
    id: str
    ref: str
    parent_id: str | None
    parent_ref: str | None
    name: str
    description: str | None
    tags: list[str]
    image_ids: list[str]


class Product(_Read):
    id: str
    ref: str | None
    category_id: str
    category_ref: str
    name: str
    description: str | None
    tags: list[str]
    nutrition: JSONObject | None
    tax_rate: dict[str, str] | None
    image_ids: list[str]
    skus: list[Sku]


class Option(_Read):
    id: str
    ref: str | None
    option_list_id: str
    name: str
    restrictions: JSONObject | None
    price: str
    price_overrides: list[JSONObject]
    default: bool
    tags: list[str]


class OptionList(_Read):
    id: str
    ref: str
    name: str
    min_selections: int
    max_selections: int | None
    type: str
    tags: list[str]
    options: list[Option]


class Deal(_Read):
    id: str
    ref: str | None
    category_id: str | None
    category_ref: str | None
    name: str
    description: str | None
    coupon_codes: list[str]
    restrictions: JSONObject | None
    tags: list[str]
    image_ids: list[str]
    lines: list[JSONObject]


class Discount(_Read):
    id: str
    ref: str | None
    name: str
    description: str | None
    restrictions: JSONObject | None
    coupon_codes: list[str]
    pricing_effect: str
    pricing_value: str
    image_ids: list[str]


class Charge(_Read):
    id: str
    ref: str | None
    name: str
    type: str
    price: str | None
    restrictions: JSONObject | None


class InventoryEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sku_ref: str | None
    option_ref: str | None
    stock: str | None
    expires_at: str | None


class Image(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    type: str
    size: int
    md5: str
    seconds_before_removal: int | None
    private_ref: str | None


class Variant(_Read):
    ref: str
    name: str


class CatalogData(_Read):
    """A catalog's whole content, each section in its read order (docs/api/catalogs.md)."""

    variants: list[Variant]
    categories: list[Category]
    products: list[Product]
    option_lists: list[OptionList]
    deals: list[Deal]
    discounts: list[Discount]
    charges: list[Charge]


Catalog.model_rebuild()  # its `data` is declared below it
