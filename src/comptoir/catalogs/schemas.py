"""Request and read shapes of spec 2.4 Catalog, for the OpenAPI document. The content is
checked by `catalogs.content` (every error named with its path), not by these models."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from comptoir.kit.ids import Id, LocationId
from comptoir.kit.requests import RequestModel
from comptoir.kit.text import NO_NUL, body_schema, text_json_schema
from comptoir.kit.times import DATETIME_SCHEMA, TimeOut


class CatalogWrite(RequestModel):
    """POST and PUT body: `name` (required on POST), and `data`, whose presence replaces all
    the content (docs/api/catalogs.md). Other keys are ignored."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=body_schema({"name": "Summer menu"}))

    name: Any = Field(default=None, json_schema_extra=text_json_schema(255, blank=False))
    data: Any = Field(
        default=None,
        json_schema_extra={
            "type": "object",
            "description": "Arrays variants, categories, products, option_lists, deals, discounts, charges.",
        },
    )


class CatalogCreate(CatalogWrite):
    """POST body: `name` is required (checked by the service, with the content's errors)."""

    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra=body_schema(
            {"name": "Summer menu"},
            {"name": "Lunch", "data": {"categories": [{"ref": "mains", "name": "Mains", "parent_ref": None}]}},
            required=["name"],
        ),
    )


class Catalog(BaseModel):
    """A catalog; `data` is omitted by lists and by `hide_data=true`."""

    model_config = ConfigDict(extra="forbid")

    id: Id
    name: str
    created_at: TimeOut
    location_id: LocationId | None
    account_id: Id | None
    data: CatalogData | None = None


# --- read shapes of what a catalog holds (spec 2.4, docs/api/catalogs.md "Read shapes") ----

JSONObject = dict[str, Any]


class _Read(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Sku(_Read):
    id: Id
    ref: str | None
    name: str | None
    product_id: Id
    restrictions: JSONObject | None
    price: str
    price_overrides: list[JSONObject]
    option_list_ids: list[Id]
    option_list_refs: list[str]
    tags: list[str]
    barcodes: list[str]
    custom_fields: JSONObject
    weight: str | None
    volume: str | None
    nb_servings: int | None


class Category(_Read):
    id: Id
    ref: str
    parent_id: Id | None
    parent_ref: str | None
    name: str
    description: str | None
    tags: list[str]
    image_ids: list[Id]


class Product(_Read):
    id: Id
    ref: str | None
    category_id: Id
    category_ref: str
    name: str
    description: str | None
    tags: list[str]
    nutrition: JSONObject | None
    tax_rate: dict[str, str] | None
    image_ids: list[Id]
    skus: list[Sku]


class Option(_Read):
    id: Id
    ref: str | None
    option_list_id: Id
    name: str
    restrictions: JSONObject | None
    price: str
    price_overrides: list[JSONObject]
    default: bool
    tags: list[str]


class OptionList(_Read):
    id: Id
    ref: str
    name: str
    min_selections: int
    max_selections: int | None
    type: str
    tags: list[str]
    options: list[Option]


class Deal(_Read):
    id: Id
    ref: str | None
    category_id: Id | None
    category_ref: str | None
    name: str
    description: str | None
    coupon_codes: list[str]
    restrictions: JSONObject | None
    tags: list[str]
    image_ids: list[Id]
    lines: list[JSONObject]


class Discount(_Read):
    id: Id
    ref: str | None
    name: str
    description: str | None
    restrictions: JSONObject | None
    coupon_codes: list[str]
    pricing_effect: str
    pricing_value: str
    image_ids: list[Id]


class Charge(_Read):
    id: Id
    ref: str | None
    name: str
    type: str
    price: str | None
    restrictions: JSONObject | None


class InventoryEntry(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"sku_ref": "cola-33", "option_ref": None, "stock": "12.0", "expires_at": None},
                {
                    "sku_ref": None,
                    "option_ref": "extra-cheese",
                    "stock": "0.0",
                    "expires_at": "2026-06-24T17:07:53+02:00",
                },
            ]
        },
    )

    sku_ref: str | None
    option_ref: str | None
    stock: str | None
    expires_at: TimeOut | None


class Image(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "id": "m3xq7t",
                    "type": "image/png",
                    "size": 48213,
                    "md5": "9e107d9d372bb6826bd81d3542a419d6",
                    "seconds_before_removal": None,
                    "private_ref": None,
                }
            ]
        },
    )

    id: Id
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


# --- inventory bodies (docs/api/inventory.md "Entries") ------------------------------------
# Read as they stream in by `catalogs.inventory` (its own checks, every error named); these
# schemas only tell the document what those checks accept.


def inventory_schema(*, patch: bool) -> dict[str, Any]:
    """An array of entries: exactly one of `sku_ref` and `option_ref` (the other absent or
    null), `stock` a decimal >= 0 with at most 3 decimals (required on PUT; null deletes on
    PATCH), `expires_at` in the future and only with a stock of 0. Each ref once, and one of
    the catalog's."""
    ref = {"type": "string", "maxLength": 255, "pattern": NO_NUL}
    stock: dict[str, Any] = {
        "anyOf": [
            {"type": "string", "pattern": "^[0-9]{1,30}(\\.[0-9]{1,3})?$"},
            {"type": "number", "minimum": 0, "maximum": 10**30, "multipleOf": 0.001},
        ]
    }
    if patch:
        stock["anyOf"].append({"type": "null"})
    zero = {"anyOf": [{"type": "string", "pattern": "^0{1,30}(\\.0{1,3})?$"}, {"const": 0}]}
    entry = {
        "type": "object",
        "properties": {
            "sku_ref": {"anyOf": [ref, {"type": "null"}]},
            "option_ref": {"anyOf": [ref, {"type": "null"}]},
            "stock": stock,
            "expires_at": {
                "anyOf": [DATETIME_SCHEMA, {"type": "null"}],
                "description": "In the future: when the item comes back (only with a stock of 0)",
            },
        },
        **({} if patch else {"required": ["stock"]}),
        "oneOf": [
            {"required": ["sku_ref"], "properties": {"sku_ref": ref, "option_ref": {"type": "null"}}},
            {"required": ["option_ref"], "properties": {"option_ref": ref, "sku_ref": {"type": "null"}}},
        ],
        # expires_at: only with a stock of 0
        "anyOf": [
            {"properties": {"expires_at": {"type": "null"}}},
            {"required": ["stock"], "properties": {"stock": zero}},
        ],
    }
    return {
        "type": "array",
        "items": entry,
        "description": "Entries {sku_ref or option_ref, stock, expires_at}; "
        + ("those not listed are unchanged, a null stock deletes its entry." if patch else "they replace all."),
        "examples": [[{"sku_ref": "cola-33", "stock": "12"}, {"option_ref": "extra-cheese", "stock": "0"}]],
    }


InventoryReplace = Annotated[Any, WithJsonSchema(inventory_schema(patch=False))]
InventoryPatch = Annotated[Any, WithJsonSchema(inventory_schema(patch=True))]
