"""Catalogs, at long and short forms (`http.routing.route`), and the reads of their
categories, products, skus, option lists, options, deals, discounts and charges
(docs/api/catalogs.md, docs/api/inventory.md)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Query
from pydantic import WithJsonSchema
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.accounts.service import account_of
from comptoir.auth.access import KindByQuery, PerLevel, WriteOn, require
from comptoir.auth.context import Ctx
from comptoir.catalogs import content, images, inventory, service
from comptoir.catalogs.schemas import (
    Catalog,
    CatalogCreate,
    CatalogWrite,
    Category,
    Charge,
    Deal,
    Discount,
    Image,
    InventoryEntry,
    InventoryPatch,
    InventoryReplace,
    Option,
    OptionList,
    Product,
    Sku,
)
from comptoir.catalogs.service import CREATE_NEED, READ_NEED, WRITE_NEED
from comptoir.errors import BadRequest, FieldErrors, NotFound
from comptoir.http.bodies import BodyShape
from comptoir.http.cursors import Pagination
from comptoir.http.dependencies import Session
from comptoir.http.openapi import (
    PAGE_RESPONSES,
    READ_ERRORS,
    WRITE_ERRORS,
    answer_example,
    body_example,
    error_responses,
)
from comptoir.http.routing import ACCOUNT, JSON, LOCATION, ComptoirRoute, route
from comptoir.http.state import app_state
from comptoir.kit.jsonstream import Shape, Tally
from comptoir.kit.jsonutil import loads
from comptoir.kit.pagination import page_of
from comptoir.kit.wire import shown
from comptoir.locations.service import location_of
from comptoir.ratelimit import GENERAL, HEAVY, IMAGE

router = APIRouter(route_class=ComptoirRoute, tags=["Catalogs"])

Reader = Annotated[Ctx, Depends(require("location,account", READ_NEED))]
AccountReader = Annotated[Ctx, Depends(require("account", READ_NEED))]
# docs/api/catalogs.md "Access": a location token may update the account-level catalog it is
# bound to, and change nothing else of an account-level catalog.
Updater = Annotated[
    Ctx,
    Depends(
        require("location,account", WRITE_NEED, on=WriteOn("catalog", "catalog_id", change="update", bound_change=True))
    ),
]
Deleter = Annotated[
    Ctx, Depends(require("location,account", WRITE_NEED, on=WriteOn("catalog", "catalog_id", change="delete")))
]
Creator = Annotated[Ctx, Depends(require("location,account", CREATE_NEED))]
AccountCreator = Annotated[Ctx, Depends(require("account", CREATE_NEED))]
HIDE_DATA = ("true", "1")  # the values of `hide_data` that leave the data out
# docs/api/conventions.md "Rate limits": a catalog GET with its data is a heavy query.
CatalogReader = Annotated[
    Ctx, Depends(require("location,account", READ_NEED, KindByQuery("hide_data", HIDE_DATA, GENERAL, HEAVY)))
]
MODIFY_ERRORS = {**WRITE_ERRORS, **error_responses(401)}
CATALOG = "/catalogs/{catalog_id}"
MENU = {
    "categories": [{"ref": "mains", "name": "Mains"}],
    "products": [
        {"ref": "burger", "category_ref": "mains", "name": "Burger", "skus": [{"ref": "burger", "price": "12.50 EUR"}]}
    ],
}
LISTED = {"id": "r8dms9", "name": "Carte", "created_at": "2026-06-24T10:00:00+02:00", "location_id": "4k3jxr-1"}
LISTED_CATALOG = {**LISTED, "account_id": None}
INVENTORY_EXAMPLE = body_example([{"sku_ref": "burger", "stock": "0", "expires_at": "2030-01-01T12:00:00+01:00"}])


def _upload_shape(_request: Request, ctx: Ctx | None) -> tuple[Shape, Tally]:
    """A catalog body streamed (catalogs.content "StreamedData"): each entity read as it comes,
    with the currency of the token's account, which is the catalog's."""
    if ctx is None or ctx.account is None:
        return Shape(fields={"name": None, "data": None}, ignored=True), FieldErrors()
    upload = content.Upload(ctx.account.currency)
    return upload.shape(), upload


def _inventory_shape(request: Request, _ctx: Ctx | None) -> tuple[Shape, Tally]:
    return inventory.shape(request.method)


Upload = Annotated[CatalogWrite, BodyShape(_upload_shape)]
Creation = Annotated[CatalogCreate, BodyShape(_upload_shape)]


def _hide_data(raw: str | None) -> bool:
    if raw is None or raw in ("false", "0"):
        return False
    if raw in HIDE_DATA:
        return True
    raise BadRequest(f"hide_data must be true or false, not {shown(raw)}")


def _raw(body: bytes | str, headers: dict[str, str] | None = None) -> Response:
    """Stored JSON, answered as it is."""
    return Response(body, media_type="application/json", headers=headers)


def _array(bodies: list[str], headers: dict[str, str] | None = None) -> Response:
    return _raw("[" + ",".join(bodies) + "]", headers)


# --- catalogs -----------------------------------------------------------------------------


@router.get(CATALOG, response_model=Catalog, responses=READ_ERRORS, summary="Get a catalog, with all its data")
async def get_catalog(
    catalog_id: str,
    session: Session,
    ctx: CatalogReader,
    hide_data: Annotated[
        str | None, WithJsonSchema({"type": "boolean"}), Query(description="true: omit `data`.")
    ] = None,
) -> Response:
    """The whole catalog: its name, level and every item of its content, each with its id and
    the upload's refs. `hide_data=true` leaves `data` out. With its data it is a heavy query
    for the rate limits; its `ETag` changes only with the catalog."""
    body, headers = await service.get_catalog(session, ctx, catalog_id, hide_data=_hide_data(hide_data))
    return _raw(body, headers)


@route(
    router,
    "GET",
    LOCATION + "/catalogs",
    response_model=list[Catalog],
    responses=answer_example(READ_ERRORS, [LISTED_CATALOG]),
    summary="List a location's catalogs (account-level ones included), without data",
    own_summary="List the connection's location's catalogs (account-level ones included), without data",
)
async def list_location_catalogs(location_id: str | None, session: Session, ctx: Reader) -> JSON:
    """The location's catalogs and its account's account-level ones, without their content,
    all at once. A connection bound to one catalog sees only that one."""
    location, account = await location_of(session, ctx, location_id)
    return JSON(await service.list_catalogs(session, ctx, account=account, location=location))


@route(
    router,
    "GET",
    ACCOUNT + "/catalogs",
    response_model=list[Catalog],
    responses=answer_example(
        READ_ERRORS, [{**LISTED, "name": "Group menu", "location_id": None, "account_id": "4k3jxr"}]
    ),
    summary="List an account's account-level catalogs, without data",
    own_summary="List the connection's account's account-level catalogs, without data",
)
async def list_account_catalogs(account_id: str | None, session: Session, ctx: AccountReader) -> JSON:
    """The account's account-level catalogs (not its locations'), without their content."""
    return JSON(await service.list_catalogs(session, ctx, account=account_of(ctx, account_id), location=None))


@route(
    router,
    "POST",
    LOCATION + "/catalogs",
    response_model=Catalog,
    responses=WRITE_ERRORS,
    summary="Create a location-level catalog",
    own_summary="Create a catalog in the connection's location",
    openapi_extra=body_example({"name": "Carte", "data": MENU}),
)
async def create_location_catalog(location_id: str | None, body: Creation, session: Session, ctx: Creator) -> Response:
    """Creates a catalog at the location with its `name` (unique among the location's catalogs,
    and no account-level catalog's) and, optionally, its content in `data`. An invalid upload
    is a 422 listing every error with its path; prices are in the account's currency. Records
    a `catalog.create` event."""
    location, account = await location_of(session, ctx, location_id)
    return _raw(
        (
            await service.create_catalog(
                session, ctx, account=account, location=location, name=body.name, data=body.data
            )
        ).read_shape()
    )


@route(
    router,
    "POST",
    ACCOUNT + "/catalogs",
    response_model=Catalog,
    responses=WRITE_ERRORS,
    summary="Create an account-level catalog",
    own_summary="Create an account-level catalog in the connection's account",
    openapi_extra=body_example({"name": "Group menu", "data": MENU}),
)
async def create_account_catalog(
    account_id: str | None, body: Creation, session: Session, ctx: AccountCreator
) -> Response:
    """Creates an account-level catalog, serving every location of the account; its `name` is
    used by no other catalog of the account or its locations. Records a `catalog.create`
    event."""
    account = account_of(ctx, account_id)
    return _raw(
        (
            await service.create_catalog(session, ctx, account=account, location=None, name=body.name, data=body.data)
        ).read_shape()
    )


@router.put(
    CATALOG,
    response_model=Catalog,
    responses=MODIFY_ERRORS,
    summary="Rename a catalog and/or replace its data",
    openapi_extra=body_example({"data": MENU}),
)
async def replace_catalog(catalog_id: str, body: Upload, session: Session, ctx: Updater) -> Response:
    """Renames the catalog (`name`) and, with `data`, replaces its whole content: every item is
    new, with new ids; there is no change of a single item. Without `data` the content stays.
    Records a `catalog.update` event."""
    return _raw(await service.replace_catalog(session, ctx, catalog_id, name=body.name, data=body.data))


@router.delete(
    CATALOG,
    response_model=Catalog,
    responses=answer_example(MODIFY_ERRORS, LISTED_CATALOG),
    summary="Delete a catalog and its content",
)
async def delete_catalog(catalog_id: str, session: Session, ctx: Deleter) -> Response:
    """Deletes the catalog and its content; answers the catalog as it
    was. Records a `catalog.delete` event."""
    return _raw(await service.delete_catalog(session, ctx, catalog_id))


# --- what a catalog holds -------------------------------------------------------------------


async def _page(session: Any, ctx: Ctx, catalog_id: str, kind: str, page: Any) -> Response:
    bodies, result = await service.list_items(session, ctx, catalog_id, kind, page)
    return _array(bodies, result.headers())


async def _all(session: Any, ctx: Ctx, catalog_id: str, kind: str) -> Response:
    bodies, _ = await service.list_items(session, ctx, catalog_id, kind, None)
    return _array(bodies)


async def _one(request: Request, ctx: Ctx, catalog_id: str, kind: str, item_id: str) -> Response:
    return _raw(await service.fast_item(app_state(request).fast, ctx, catalog_id, kind, item_id))


def _child(parent: str, key: str, kind: str, child_id: str) -> dict[str, Any]:
    """One sku of a product, or one option of an option list."""
    for child in loads(parent)[key]:
        if child["id"] == child_id:
            return child
    raise NotFound(kind, child_id)


def _item_routes(section: str, kind: str, summary: str, model: Any, *, paginated: bool) -> None:
    """`GET /catalogs/:id/<section>` and `GET /catalogs/:id/<section>/:item_id`, for each kind
    of item stored as its own row (docs/api/catalogs.md "Read shapes")."""
    if paginated:

        async def list_all(catalog_id: str, session: Session, ctx: Reader, page: Pagination) -> Response:
            return await _page(session, ctx, catalog_id, kind, page)

    else:

        async def list_all(catalog_id: str, session: Session, ctx: Reader) -> Response:  # type: ignore[misc]
            return await _all(session, ctx, catalog_id, kind)

    async def get_one(request: Request, catalog_id: str, item_id: str, ctx: Reader) -> Response:
        return await _one(request, ctx, catalog_id, kind, item_id)

    path = f"{CATALOG}/{section}"
    errors = PAGE_RESPONSES if paginated else READ_ERRORS
    pages = "a page at a time" if paginated else "all at once (not paginated)"
    router.add_api_route(
        path, list_all, methods=["GET"], response_model=list[model], responses=errors, summary=f"List {summary}",
        name=f"list_{section}",
        description=f"The catalog's {summary}, {pages}, each with its id beside the upload's refs.",
    )  # fmt: skip
    router.add_api_route(
        path + "/{item_id}", get_one, methods=["GET"], response_model=model, responses=READ_ERRORS,
        summary=f"Get one of the {summary}", name=f"get_{kind}",
        description=f"One {kind.replace('_', ' ')} of the catalog, by its id, as the list shows it.",
    )  # fmt: skip


_item_routes("categories", "category", "categories, depth-first", Category, paginated=True)
_item_routes("products", "product", "products, with their skus, in upload order", Product, paginated=True)
_item_routes("option_lists", "option_list", "option lists, with their options", OptionList, paginated=False)
_item_routes("deals", "deal", "deals", Deal, paginated=False)
_item_routes("discounts", "discount", "catalog discounts", Discount, paginated=False)
_item_routes("charges", "charge", "catalog charges", Charge, paginated=False)


@router.get(
    CATALOG + "/products/{product_id}/skus",
    response_model=list[Sku],
    responses=PAGE_RESPONSES,
    summary="List a product's skus",
)
async def list_skus(request: Request, catalog_id: str, product_id: str, ctx: Reader, page: Pagination) -> JSON:
    """The product's skus, in upload order, a page at a time."""
    product = await service.fast_item(app_state(request).fast, ctx, catalog_id, "product", product_id)
    result = page_of(loads(product)["skus"], page)
    return JSON(result.rows, headers=result.headers())


@router.get(
    CATALOG + "/products/{product_id}/skus/{sku_id}", response_model=Sku, responses=READ_ERRORS, summary="Get a sku"
)
async def get_sku(request: Request, catalog_id: str, product_id: str, sku_id: str, ctx: Reader) -> JSON:
    """One sku of the product, with its price and option lists."""
    product = await service.fast_item(app_state(request).fast, ctx, catalog_id, "product", product_id)
    return JSON(_child(product, "skus", "sku", sku_id))


@router.get(
    CATALOG + "/option_lists/{option_list_id}/options",
    response_model=list[Option],
    responses=READ_ERRORS,
    summary="List an option list's options",
)
async def list_options(request: Request, catalog_id: str, option_list_id: str, ctx: Reader) -> JSON:
    """The option list's options, all at once."""
    option_list = await service.fast_item(app_state(request).fast, ctx, catalog_id, "option_list", option_list_id)
    return JSON(loads(option_list)["options"])


@router.get(
    CATALOG + "/option_lists/{option_list_id}/options/{option_id}",
    response_model=Option,
    responses=READ_ERRORS,
    summary="Get an option",
)
async def get_option(request: Request, catalog_id: str, option_list_id: str, option_id: str, ctx: Reader) -> JSON:
    """One option of the option list, with its price."""
    option_list = await service.fast_item(app_state(request).fast, ctx, catalog_id, "option_list", option_list_id)
    return JSON(_child(option_list, "options", "option", option_id))


# --- inventory (docs/api/inventory.md "Entries") -------------------------------------------

# docs/api/inventory.md "Access": a location token may still use the deprecated catalog scopes
INVENTORY_READ = PerLevel(location="inventory.read|catalog.read", account="inventory.read")
INVENTORY_WRITE = PerLevel(location="inventory.write|catalog.write", account="inventory.write")
InventoryReader = Annotated[Ctx, Depends(require("location,account", INVENTORY_READ))]
InventoryWriter = Annotated[Ctx, Depends(require("location,account", INVENTORY_WRITE))]
INVENTORY = CATALOG + LOCATION + "/inventory"
# typed for the document only: the entries are read by `catalogs.inventory` as they stream in
InventoryBody = Annotated[InventoryReplace, Body(), BodyShape(_inventory_shape)]
InventoryChanges = Annotated[InventoryPatch, Body(), BodyShape(_inventory_shape)]


async def _inventory(
    session: AsyncSession, ctx: Ctx, catalog_id: str, location_id: str | None, action: str, body: Any = None
) -> JSON:
    """One inventory request at `location_id` (None: the connection's own location); writes
    lock the location, so two writers of one inventory go one after the other."""
    location, _account = await location_of(session, ctx, location_id, for_update=action != "read")
    catalog, location = await inventory.inventory_in_reach(session, catalog_id, location)
    if action == "read":
        return JSON(await inventory.read_inventory(session, catalog, location))
    if action == "replace":
        return JSON(await inventory.replace_inventory(session, ctx, catalog, location, body))
    return JSON(await inventory.patch_inventory(session, ctx, catalog, location, body))


ENTRIES = list[InventoryEntry]
AT, OWN = "at a location", "at the connection's location"


@route(
    router,
    "GET",
    INVENTORY,
    response_model=ENTRIES,
    responses=answer_example(
        READ_ERRORS,
        [{"sku_ref": "burger", "option_ref": None, "stock": "0", "expires_at": "2030-01-01T12:00:00+01:00"}],
    ),
    summary=f"Get a catalog's inventory {AT}",
    own_summary=f"Get a catalog's inventory {OWN}",
)
async def get_inventory(catalog_id: str, location_id: str | None, session: Session, ctx: InventoryReader) -> JSON:
    """The catalog's stock at the location: one entry per sku or option whose stock is
    limited (`sku_ref` or `option_ref`, `stock`, `expires_at`). No entry means unlimited
    stock."""
    return await _inventory(session, ctx, catalog_id, location_id, "read")


@route(
    router,
    "PUT",
    INVENTORY,
    response_model=ENTRIES,
    responses=WRITE_ERRORS,
    summary=f"Replace a catalog's inventory {AT}",
    own_summary=f"Replace a catalog's inventory {OWN}",
    openapi_extra=INVENTORY_EXAMPLE,
)
async def put_inventory(
    catalog_id: str, location_id: str | None, body: InventoryBody, session: Session, ctx: InventoryWriter
) -> JSON:
    """Replaces every entry of the catalog at the location and answers the whole inventory.
    Refs must be in the catalog; `stock` is a decimal >= 0 with at most 3 decimals;
    `expires_at`, with stock 0 only, is when the item comes back. Records an
    `inventory.update` event."""
    return await _inventory(session, ctx, catalog_id, location_id, "replace", body)


@route(
    router,
    "PATCH",
    INVENTORY,
    response_model=ENTRIES,
    responses=WRITE_ERRORS,
    summary=f"Change inventory entries {AT}",
    own_summary=f"Change inventory entries {OWN}",
    openapi_extra=INVENTORY_EXAMPLE,
)
async def patch_inventory(
    catalog_id: str, location_id: str | None, body: InventoryChanges, session: Session, ctx: InventoryWriter
) -> JSON:
    """Changes only the entries sent (`"stock": null` deletes one) and answers them. Records
    an `inventory.patch` event listing the changed entries."""
    return await _inventory(session, ctx, catalog_id, location_id, "patch", body)


# --- images (docs/api/catalogs.md "Images"): their own rate limits -------------------------

ImageReader = Annotated[Ctx, Depends(require("location,account", READ_NEED, IMAGE))]
ImageWriter = Annotated[
    Ctx,
    Depends(
        require(
            "location,account",
            WRITE_NEED,
            IMAGE,
            on=WriteOn("catalog", "catalog_id", "adding images to catalog '{id}'"),
        )
    ),
]
IMAGES = CATALOG + "/images"


async def _limited_body(request: Request) -> bytes:
    """The raw body, read no further than one byte past the limit."""
    chunks, size = [], 0
    async for chunk in request.stream():
        chunks.append(chunk)
        size += len(chunk)
        if size > images.MAX_BYTES:
            break
    return b"".join(chunks)


@router.post(
    IMAGES,
    response_model=Image,
    responses=WRITE_ERRORS,
    summary="Upload an image (raw bytes, at most 1 MB)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {kind: {"schema": {"type": "string", "format": "binary"}} for kind in images.TYPES},
        }
    },
)
async def upload_image(
    request: Request,
    catalog_id: str,
    session: Session,
    ctx: ImageWriter,
    private_ref: Annotated[str | None, Query(description="Your private ref of the image.")] = None,
) -> JSON:
    """Stores an image for the catalog's items: the body is the image's bytes (JPEG, PNG,
    WebP, GIF or BMP, at most 1 MB) with its `Content-Type`. Images have their own rate
    limits."""
    body = await _limited_body(request)
    content_type = request.headers.get("content-type")
    return JSON(await images.upload(session, ctx, catalog_id, content_type, body, private_ref))


IMAGE_EXAMPLE = {
    "id": "i6t2pm",
    "type": "image/png",
    "size": 48213,
    "md5": "9e107d9d372bb6826bd81d3542a419d6",
    "seconds_before_removal": None,
    "private_ref": "burger-photo",
}


@router.get(
    IMAGES,
    response_model=list[Image],
    responses=answer_example(READ_ERRORS, [IMAGE_EXAMPLE]),
    summary="List a catalog's images",
)
async def list_images(catalog_id: str, session: Session, ctx: ImageReader) -> JSON:
    """The catalog's images, their metadata only (type, size, MD5, your private ref)."""
    return JSON(await images.list_images(session, ctx, catalog_id))


@router.get(IMAGES + "/{image_id}", response_model=Image, responses=READ_ERRORS, summary="Get an image's metadata")
async def get_image(catalog_id: str, image_id: str, session: Session, ctx: ImageReader) -> JSON:
    """One image's metadata."""
    return JSON(await images.get_image(session, ctx, catalog_id, image_id))


# docs/api/catalogs.md "Images": an image's bytes are answered as the type they were uploaded
# with, which a browser must never second-guess (an image holding markup is never run as a page)
NOSNIFF = {"X-Content-Type-Options": "nosniff"}


@router.get(
    IMAGES + "/{image_id}/data",
    response_class=Response,
    responses={
        **READ_ERRORS,
        200: {
            "description": "The bytes",
            "content": {kind: {} for kind in images.TYPES},
            "headers": {
                "X-Content-Type-Options": {
                    "description": "Always `nosniff`: the bytes are only ever read as their type.",
                    "schema": {"type": "string", "enum": ["nosniff"]},
                }
            },
        },
    },
    summary="Get an image's bytes",
)
async def get_image_data(catalog_id: str, image_id: str, session: Session, ctx: ImageReader) -> Response:
    """The image's bytes, with its media type and `X-Content-Type-Options: nosniff`."""
    data, media_type = await images.image_data(session, ctx, catalog_id, image_id)
    return Response(data, media_type=media_type, headers=NOSNIFF)
