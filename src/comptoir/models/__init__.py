"""All models, imported here so the metadata is complete for Alembic and the tests."""

from comptoir.models.accounts import Account
from comptoir.models.base import Base
from comptoir.models.callbacks import Callback, DeliveryAttempt, Event, Notice, Subscription
from comptoir.models.catalog_content import CATALOG_ITEM_IDS, CatalogContent, CatalogItem
from comptoir.models.catalogs import Catalog
from comptoir.models.changes import Change, ChangePerson
from comptoir.models.clients import OAuthClient
from comptoir.models.connections import CacheStamp, Connection
from comptoir.models.customers import Customer, CustomerList, LoyaltyCard, LoyaltyOperation
from comptoir.models.deliveries import Delivery, DeliveryQuote
from comptoir.models.idempotency import IdempotencyKey
from comptoir.models.images import CatalogImage, ImageData
from comptoir.models.installation import Installation, ServerKeyWrap
from comptoir.models.inventory import InventoryEntry
from comptoir.models.locations import Location
from comptoir.models.names import NameClaim
from comptoir.models.oauth import AuthorizationCode
from comptoir.models.orders import ORDER_ELEMENT_IDS, IdCounter, Order
from comptoir.models.private_refs import PrivateRef
from comptoir.models.request_logs import RequestLog
from comptoir.models.users import User
from comptoir.models.web_sessions import BrowserSession

__all__ = [
    "CATALOG_ITEM_IDS",
    "ORDER_ELEMENT_IDS",
    "Account",
    "AuthorizationCode",
    "Base",
    "BrowserSession",
    "CacheStamp",
    "Callback",
    "Catalog",
    "CatalogContent",
    "CatalogImage",
    "CatalogItem",
    "Change",
    "ChangePerson",
    "Connection",
    "Customer",
    "CustomerList",
    "Delivery",
    "DeliveryAttempt",
    "DeliveryQuote",
    "Event",
    "IdCounter",
    "IdempotencyKey",
    "ImageData",
    "Installation",
    "InventoryEntry",
    "Location",
    "LoyaltyCard",
    "LoyaltyOperation",
    "NameClaim",
    "Notice",
    "OAuthClient",
    "Order",
    "PrivateRef",
    "RequestLog",
    "ServerKeyWrap",
    "Subscription",
    "User",
]
