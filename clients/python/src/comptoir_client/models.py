"""Comptoir's request and response models, generated from the server's /v1/openapi.json by
scripts/generate_client_models.py: do not edit by hand.

Read models ignore fields they do not know, so a client keeps working when the server adds one.
"""

from __future__ import annotations

import warnings
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AnyUrl,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
)
from typing_extensions import TypeAliasType


class Account(BaseModel):
    """
    An account: the business that owns locations (docs/api/locations-accounts.md).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    currency: Annotated[str, Field(title="Currency")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    name: Annotated[str, Field(title="Name")]


class Callback(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    disabled_at: Annotated[
        AwareDatetime | None,
        Field(
            description="When deliveries were disabled after failing; null while enabled",
            title="Disabled At",
        ),
    ]
    disabled_reason: Annotated[
        str | None,
        Field(
            description="Why deliveries were disabled; null while enabled",
            title="Disabled Reason",
        ),
    ]
    events: Annotated[dict[str, list[str]], Field(title="Events")]
    url: Annotated[str | None, Field(title="Url")]


class Events(BaseModel):
    """
    Resource type -> event types, e.g. {"order": ["create", "update"]}
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    catalog: list[Literal["create", "delete", "update"]] | None = None
    customer: list[Literal["create", "update"]] | None = None
    customer_list: list[Literal["create", "delete", "update"]] | None = None
    delivery: list[Literal["create", "update"]] | None = None
    inventory: list[Literal["patch", "update"]] | None = None
    location: list[Literal["update"]] | None = None
    order: list[Literal["create", "update"]] | None = None
    own_order: list[Literal["update"]] | None = None
    own_order_delivery: list[Literal["create", "update"]] | None = None


Url = TypeAliasType(
    "Url",
    Annotated[
        AnyUrl,
        Field(
            description="HTTP(S) URL to POST events to, on a public address (unless the operator allows its network); null for a passive callback",
            title="Url",
        ),
    ],
)


class CallbackUpdate(BaseModel):
    """
    POST /callback: `url` (null or absent: passive, polling) and the `events` map.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    events: Annotated[
        Events,
        Field(
            description='Resource type -> event types, e.g. {"order": ["create", "update"]}',
            title="Events",
        ),
    ]
    url: Annotated[
        Url | None,
        Field(
            description="HTTP(S) URL to POST events to, on a public address (unless the operator allows its network); null for a passive callback",
            title="Url",
        ),
    ] = None


AccountId = TypeAliasType(
    "AccountId",
    Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Account Id"),
    ],
)


LocationId = TypeAliasType(
    "LocationId",
    Annotated[
        str,
        Field(
            examples=["4k3jxr-1"],
            pattern="^[2-9a-km-np-z]{6,13}-[1-9][0-9]{0,8}$",
            title="Location Id",
        ),
    ],
)


class CatalogCreate(BaseModel):
    """
    POST body: `name` is required (checked by the service, with the content's errors).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    data: Annotated[
        dict[str, Any] | None,
        Field(
            description="Arrays variants, categories, products, option_lists, deals, discounts, charges.",
            title="Data",
        ),
    ] = None
    name: Annotated[
        str,
        Field(
            max_length=255,
            min_length=1,
            pattern="^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$",
            title="Name",
        ),
    ]


class CatalogWrite(BaseModel):
    """
    POST and PUT body: `name` (required on POST), and `data`, whose presence replaces all
    the content (docs/api/catalogs.md). Other keys are ignored.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    data: Annotated[
        dict[str, Any] | None,
        Field(
            description="Arrays variants, categories, products, option_lists, deals, discounts, charges.",
            title="Data",
        ),
    ] = None
    name: Annotated[
        str | None,
        Field(
            max_length=255,
            min_length=1,
            pattern="^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$",
            title="Name",
        ),
    ] = None


ImageId = TypeAliasType(
    "ImageId",
    Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$")],
)


ParentId = TypeAliasType(
    "ParentId",
    Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Parent Id"),
    ],
)


class Category(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    description: Annotated[str | None, Field(title="Description")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    image_ids: Annotated[list[ImageId], Field(title="Image Ids")]
    name: Annotated[str, Field(title="Name")]
    parent_id: Annotated[ParentId | None, Field(title="Parent Id")]
    parent_ref: Annotated[str | None, Field(title="Parent Ref")]
    ref: Annotated[str, Field(title="Ref")]
    tags: Annotated[list[str], Field(title="Tags")]


class Charge(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    name: Annotated[str, Field(title="Name")]
    price: Annotated[str | None, Field(title="Price")]
    ref: Annotated[str | None, Field(title="Ref")]
    restrictions: Annotated[dict[str, Any] | None, Field(title="Restrictions")]
    type: Annotated[str, Field(title="Type")]


PrivateRef = TypeAliasType(
    "PrivateRef",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Private Ref")],
)


Ref = TypeAliasType("Ref", Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Ref")])


TaxRate = TypeAliasType(
    "TaxRate",
    Annotated[
        str,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            pattern="^-?[0-9]{1,30}(\\.[0-9]{1,30})?$",
            title="Tax Rate",
        ),
    ],
)


TaxRate1 = TypeAliasType(
    "TaxRate1",
    Annotated[
        float,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            ge=-1e30,
            le=1e30,
            multiple_of=1e-30,
            title="Tax Rate",
        ),
    ],
)


class OrderCharge(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Name")]
    price: Annotated[
        str,
        Field(
            description="Amount, a space and an ISO 4217 currency; read back with 2 decimals.",
            examples=["12.50 EUR"],
            pattern="^[0-9]{1,15}(\\.[0-9]{1,2})? [A-Z]{3}$",
            title="Price",
        ),
    ]
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    tax_rate: Annotated[TaxRate | TaxRate1 | None, Field(title="Tax Rate")] = None
    type: Annotated[
        Literal["delivery", "payment_fee", "tip", "tax", "other"] | None,
        Field(title="Type"),
    ] = "other"


class OrderChargeRead(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    charge_price: Annotated[str, Field(title="Charge Price")]
    charge_ref: Annotated[str | None, Field(title="Charge Ref")]
    charge_type: Annotated[str, Field(title="Charge Type")]
    deleted: Annotated[bool, Field(title="Deleted")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    name: Annotated[str, Field(title="Name")]
    price: Annotated[str, Field(title="Price")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    ref: Annotated[str | None, Field(title="Ref")]
    tax_rate: Annotated[str | None, Field(title="Tax Rate")]
    type: Annotated[str, Field(title="Type")]


class CustomerList(BaseModel):
    """
    A customer list; `created_at` in the list's location timezone (UTC at account level).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    created_at: Annotated[AwareDatetime, Field(examples=["2026-06-24T17:07:53+02:00"], title="Created At")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    name: Annotated[str, Field(title="Name")]


class CustomerListWrite(BaseModel):
    """
    POST and PATCH/PUT body: `name` only; other keys are ignored.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=255,
            min_length=1,
            pattern="^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$",
            title="Name",
        ),
    ]


Address1 = TypeAliasType(
    "Address1",
    Annotated[str, Field(max_length=1000, pattern="^[^\\u0000]*$", title="Address 1")],
)


Address2 = TypeAliasType(
    "Address2",
    Annotated[str, Field(max_length=1000, pattern="^[^\\u0000]*$", title="Address 2")],
)


BirthDate = TypeAliasType("BirthDate", Annotated[date, Field(examples=["2026-06-24"], title="Birth Date")])


City = TypeAliasType("City", Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="City")])


CompanyName = TypeAliasType(
    "CompanyName",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Company Name")],
)


DeliveryNotes = TypeAliasType(
    "DeliveryNotes",
    Annotated[str, Field(max_length=5000, pattern="^[^\\u0000]*$", title="Delivery Notes")],
)


Email = TypeAliasType(
    "Email",
    Annotated[
        str,
        Field(
            examples=["ann@example.com"],
            max_length=255,
            pattern="^[^@\\s\\u001c-\\u001f\\u0085]+@[^@\\s\\u001c-\\u001f\\u0085]+$",
            title="Email",
        ),
    ],
)


FirstName = TypeAliasType(
    "FirstName",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="First Name")],
)


LastName = TypeAliasType(
    "LastName",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Last Name")],
)


Latitude = TypeAliasType(
    "Latitude",
    Annotated[
        str,
        Field(
            description="Exact decimal between -90 and 90: a string, or a JSON number on write.",
            pattern="^-?(90(\\.0{1,30})?|[0-8]?[0-9](\\.[0-9]{1,30})?)$",
            title="Latitude",
        ),
    ],
)


Latitude1 = TypeAliasType(
    "Latitude1",
    Annotated[
        float,
        Field(
            description="Exact decimal between -90 and 90: a string, or a JSON number on write.",
            ge=-90.0,
            le=90.0,
            multiple_of=1e-30,
            title="Latitude",
        ),
    ],
)


Longitude = TypeAliasType(
    "Longitude",
    Annotated[
        str,
        Field(
            description="Exact decimal between -180 and 180: a string, or a JSON number on write.",
            pattern="^-?(180(\\.0{1,30})?|(1[0-7][0-9]|[0-9]{1,2})(\\.[0-9]{1,30})?)$",
            title="Longitude",
        ),
    ],
)


Longitude1 = TypeAliasType(
    "Longitude1",
    Annotated[
        float,
        Field(
            description="Exact decimal between -180 and 180: a string, or a JSON number on write.",
            ge=-180.0,
            le=180.0,
            multiple_of=1e-30,
            title="Longitude",
        ),
    ],
)


Phone = TypeAliasType(
    "Phone",
    Annotated[
        str,
        Field(
            description="E.164 (other formats are deprecated)",
            examples=["+33612345678"],
            max_length=64,
            pattern="^(\\+(1[0-9]{7,10}|7[0-9]{10,14}|20[0-9]{8,10}|27[0-9]{5,10}|30[0-9]{10,12}|31[0-9]{5,11}|32[0-9]{8,9}|33[0-9]{9,9}|34[0-9]{9,9}|36[0-9]{8,9}|39[0-9]{6,12}|40[0-9]{6,9}|41[0-9]{9,12}|43[0-9]{4,13}|44[0-9]{7,10}|45[0-9]{8,8}|46[0-9]{6,12}|47[0-9]{5,8}|48[0-9]{6,10}|49[0-9]{4,15}|51[0-9]{8,9}|52[0-9]{10,10}|53[0-9]{6,10}|54[0-9]{10,11}|55[0-9]{8,11}|56[0-9]{9,11}|57[0-9]{8,11}|58[0-9]{10,10}|60[0-9]{8,10}|61[0-9]{5,12}|62[0-9]{7,17}|63[0-9]{6,13}|64[0-9]{5,10}|65[0-9]{8,11}|66[0-9]{8,13}|81[0-9]{8,17}|82[0-9]{5,14}|84[0-9]{7,10}|86[0-9]{7,12}|90[0-9]{7,13}|91[0-9]{8,13}|92[0-9]{8,12}|93[0-9]{9,9}|94[0-9]{9,9}|95[0-9]{6,10}|98[0-9]{4,10}|211[0-9]{9,9}|212[0-9]{9,9}|213[0-9]{8,9}|216[0-9]{8,8}|218[0-9]{9,9}|220[0-9]{7,9}|221[0-9]{9,9}|222[0-9]{8,8}|223[0-9]{8,8}|224[0-9]{8,9}|225[0-9]{10,10}|226[0-9]{8,8}|227[0-9]{8,8}|228[0-9]{8,8}|229[0-9]{10,10}|230[0-9]{7,10}|231[0-9]{7,9}|232[0-9]{8,8}|233[0-9]{8,9}|234[0-9]{10,14}|235[0-9]{8,8}|236[0-9]{8,8}|237[0-9]{8,9}|238[0-9]{7,7}|239[0-9]{7,7}|240[0-9]{9,9}|241[0-9]{7,8}|242[0-9]{9,9}|243[0-9]{7,10}|244[0-9]{9,9}|245[0-9]{7,9}|246[0-9]{7,7}|247[0-9]{5,6}|248[0-9]{7,7}|249[0-9]{9,9}|250[0-9]{8,9}|251[0-9]{9,9}|252[0-9]{6,9}|253[0-9]{8,8}|254[0-9]{7,10}|255[0-9]{9,9}|256[0-9]{9,9}|257[0-9]{8,8}|258[0-9]{8,9}|260[0-9]{9,9}|261[0-9]{9,9}|262[0-9]{9,9}|263[0-9]{7,10}|264[0-9]{8,9}|265[0-9]{7,9}|266[0-9]{8,8}|267[0-9]{7,10}|268[0-9]{8,9}|269[0-9]{7,7}|290[0-9]{4,5}|291[0-9]{7,7}|297[0-9]{7,7}|298[0-9]{6,6}|299[0-9]{6,6}|350[0-9]{8,8}|351[0-9]{9,9}|352[0-9]{4,11}|353[0-9]{7,10}|354[0-9]{7,9}|355[0-9]{6,9}|356[0-9]{8,8}|357[0-9]{8,8}|358[0-9]{5,12}|359[0-9]{6,12}|370[0-9]{8,8}|371[0-9]{8,8}|372[0-9]{7,10}|373[0-9]{8,8}|374[0-9]{8,8}|375[0-9]{6,11}|376[0-9]{6,9}|377[0-9]{8,9}|378[0-9]{8,10}|380[0-9]{9,10}|381[0-9]{6,12}|382[0-9]{8,9}|383[0-9]{8,12}|385[0-9]{7,9}|386[0-9]{5,8}|387[0-9]{8,9}|389[0-9]{8,8}|420[0-9]{9,12}|421[0-9]{6,9}|423[0-9]{7,9}|500[0-9]{5,5}|501[0-9]{7,11}|502[0-9]{8,11}|503[0-9]{7,11}|504[0-9]{8,11}|505[0-9]{8,8}|506[0-9]{8,10}|507[0-9]{7,11}|508[0-9]{6,9}|509[0-9]{8,8}|590[0-9]{9,9}|591[0-9]{8,9}|592[0-9]{7,7}|593[0-9]{8,11}|594[0-9]{9,9}|595[0-9]{6,11}|596[0-9]{9,9}|597[0-9]{6,7}|598[0-9]{4,13}|599[0-9]{7,8}|670[0-9]{7,8}|672[0-9]{6,6}|673[0-9]{7,7}|674[0-9]{7,7}|675[0-9]{7,8}|676[0-9]{5,7}|677[0-9]{5,7}|678[0-9]{5,7}|679[0-9]{7,11}|680[0-9]{7,7}|681[0-9]{6,9}|682[0-9]{5,5}|683[0-9]{4,7}|685[0-9]{5,10}|686[0-9]{5,8}|687[0-9]{6,6}|688[0-9]{5,7}|689[0-9]{6,9}|690[0-9]{4,7}|691[0-9]{7,7}|692[0-9]{7,7}|800[0-9]{8,8}|808[0-9]{8,8}|850[0-9]{8,10}|852[0-9]{5,11}|853[0-9]{7,8}|855[0-9]{8,10}|856[0-9]{8,10}|870[0-9]{9,12}|878[0-9]{12,12}|880[0-9]{6,10}|881[0-9]{9,10}|882[0-9]{7,12}|883[0-9]{8,12}|886[0-9]{7,11}|888[0-9]{11,11}|960[0-9]{7,10}|961[0-9]{7,8}|962[0-9]{8,9}|963[0-9]{8,9}|964[0-9]{8,10}|965[0-9]{7,8}|966[0-9]{9,10}|967[0-9]{7,9}|968[0-9]{7,9}|970[0-9]{8,10}|971[0-9]{5,12}|972[0-9]{7,12}|973[0-9]{8,8}|974[0-9]{7,11}|975[0-9]{7,8}|976[0-9]{8,10}|977[0-9]{8,11}|979[0-9]{9,9}|992[0-9]{9,9}|993[0-9]{8,8}|994[0-9]{9,9}|995[0-9]{9,9}|996[0-9]{9,10}|998[0-9]{9,9})|[^+\\s\\u0000][^\\u0000]*)$",
            title="Phone",
        ),
    ],
)


PhoneAccessCode = TypeAliasType(
    "PhoneAccessCode",
    Annotated[str, Field(max_length=64, pattern="^[^\\u0000]*$", title="Phone Access Code")],
)


PostalCode = TypeAliasType(
    "PostalCode",
    Annotated[str, Field(max_length=32, pattern="^[^\\u0000]*$", title="Postal Code")],
)


State = TypeAliasType(
    "State",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="State")],
)


class CustomerWrite(BaseModel):
    """
    POST, PATCH and PUT body (docs/api/customers.md): every field optional; on update only the
    fields present change. Read-only fields and unknown keys are ignored
    (docs/api/conventions.md "Requests").
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    address_1: Annotated[Address1 | None, Field(title="Address 1")] = None
    address_2: Annotated[Address2 | None, Field(title="Address 2")] = None
    birth_date: Annotated[BirthDate | None, Field(title="Birth Date")] = None
    city: Annotated[City | None, Field(title="City")] = None
    company_name: Annotated[CompanyName | None, Field(title="Company Name")] = None
    country: Annotated[
        Literal[
            "AD",
            "AE",
            "AF",
            "AG",
            "AI",
            "AL",
            "AM",
            "AO",
            "AQ",
            "AR",
            "AS",
            "AT",
            "AU",
            "AW",
            "AX",
            "AZ",
            "BA",
            "BB",
            "BD",
            "BE",
            "BF",
            "BG",
            "BH",
            "BI",
            "BJ",
            "BL",
            "BM",
            "BN",
            "BO",
            "BQ",
            "BR",
            "BS",
            "BT",
            "BV",
            "BW",
            "BY",
            "BZ",
            "CA",
            "CC",
            "CD",
            "CF",
            "CG",
            "CH",
            "CI",
            "CK",
            "CL",
            "CM",
            "CN",
            "CO",
            "CR",
            "CU",
            "CV",
            "CW",
            "CX",
            "CY",
            "CZ",
            "DE",
            "DJ",
            "DK",
            "DM",
            "DO",
            "DZ",
            "EC",
            "EE",
            "EG",
            "EH",
            "ER",
            "ES",
            "ET",
            "FI",
            "FJ",
            "FK",
            "FM",
            "FO",
            "FR",
            "GA",
            "GB",
            "GD",
            "GE",
            "GF",
            "GG",
            "GH",
            "GI",
            "GL",
            "GM",
            "GN",
            "GP",
            "GQ",
            "GR",
            "GS",
            "GT",
            "GU",
            "GW",
            "GY",
            "HK",
            "HM",
            "HN",
            "HR",
            "HT",
            "HU",
            "ID",
            "IE",
            "IL",
            "IM",
            "IN",
            "IO",
            "IQ",
            "IR",
            "IS",
            "IT",
            "JE",
            "JM",
            "JO",
            "JP",
            "KE",
            "KG",
            "KH",
            "KI",
            "KM",
            "KN",
            "KP",
            "KR",
            "KW",
            "KY",
            "KZ",
            "LA",
            "LB",
            "LC",
            "LI",
            "LK",
            "LR",
            "LS",
            "LT",
            "LU",
            "LV",
            "LY",
            "MA",
            "MC",
            "MD",
            "ME",
            "MF",
            "MG",
            "MH",
            "MK",
            "ML",
            "MM",
            "MN",
            "MO",
            "MP",
            "MQ",
            "MR",
            "MS",
            "MT",
            "MU",
            "MV",
            "MW",
            "MX",
            "MY",
            "MZ",
            "NA",
            "NC",
            "NE",
            "NF",
            "NG",
            "NI",
            "NL",
            "NO",
            "NP",
            "NR",
            "NU",
            "NZ",
            "OM",
            "PA",
            "PE",
            "PF",
            "PG",
            "PH",
            "PK",
            "PL",
            "PM",
            "PN",
            "PR",
            "PS",
            "PT",
            "PW",
            "PY",
            "QA",
            "RE",
            "RO",
            "RS",
            "RU",
            "RW",
            "SA",
            "SB",
            "SC",
            "SD",
            "SE",
            "SG",
            "SH",
            "SI",
            "SJ",
            "SK",
            "SL",
            "SM",
            "SN",
            "SO",
            "SR",
            "SS",
            "ST",
            "SV",
            "SX",
            "SY",
            "SZ",
            "TC",
            "TD",
            "TF",
            "TG",
            "TH",
            "TJ",
            "TK",
            "TL",
            "TM",
            "TN",
            "TO",
            "TR",
            "TT",
            "TV",
            "TW",
            "TZ",
            "UA",
            "UG",
            "UM",
            "US",
            "UY",
            "UZ",
            "VA",
            "VC",
            "VE",
            "VG",
            "VI",
            "VN",
            "VU",
            "WF",
            "WS",
            "YE",
            "YT",
            "ZA",
            "ZM",
            "ZW",
        ]
        | None,
        Field(title="Country"),
    ] = None
    custom_fields: Annotated[
        dict[Annotated[str, StringConstraints(pattern=r"^[^\u0000]*$")], Any] | None,
        Field(
            description="At most 8 KB as JSON. On update a null value removes the key, other keys are added or replaced, absent keys are kept.",
            title="Custom Fields",
        ),
    ] = None
    delivery_notes: Annotated[DeliveryNotes | None, Field(title="Delivery Notes")] = None
    email: Annotated[Email | None, Field(title="Email")] = None
    email_marketing: Annotated[bool | None, Field(title="Email Marketing")] = False
    first_name: Annotated[FirstName | None, Field(title="First Name")] = None
    gender: Annotated[Literal["male", "female"] | None, Field(title="Gender")] = None
    last_name: Annotated[LastName | None, Field(title="Last Name")] = None
    latitude: Annotated[Latitude | Latitude1 | None, Field(title="Latitude")] = None
    longitude: Annotated[Longitude | Longitude1 | None, Field(title="Longitude")] = None
    phone: Annotated[Phone | None, Field(title="Phone")] = None
    phone_access_code: Annotated[PhoneAccessCode | None, Field(title="Phone Access Code")] = None
    postal_code: Annotated[PostalCode | None, Field(title="Postal Code")] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    sms_marketing: Annotated[bool | None, Field(title="Sms Marketing")] = False
    state: Annotated[State | None, Field(title="State")] = None


CategoryId = TypeAliasType(
    "CategoryId",
    Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Category Id"),
    ],
)


class Deal(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    category_id: Annotated[CategoryId | None, Field(title="Category Id")]
    category_ref: Annotated[str | None, Field(title="Category Ref")]
    coupon_codes: Annotated[list[str], Field(title="Coupon Codes")]
    description: Annotated[str | None, Field(title="Description")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    image_ids: Annotated[list[ImageId], Field(title="Image Ids")]
    lines: Annotated[list[dict[str, Any]], Field(title="Lines")]
    name: Annotated[str, Field(title="Name")]
    ref: Annotated[str | None, Field(title="Ref")]
    restrictions: Annotated[dict[str, Any] | None, Field(title="Restrictions")]
    tags: Annotated[list[str], Field(title="Tags")]


class OrderDeal(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Name")]
    ref: Annotated[Ref | None, Field(title="Ref")] = None


Label = TypeAliasType(
    "Label",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Label")],
)


PricingEffect = TypeAliasType(
    "PricingEffect",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Pricing Effect")],
)


PricingValue = TypeAliasType(
    "PricingValue",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Pricing Value")],
)


class DealLine(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    deal_key: Annotated[
        str,
        Field(
            description="A key of the order's `deals`",
            pattern="^[^\\u0000]*$",
            title="Deal Key",
        ),
    ]
    label: Annotated[Label | None, Field(title="Label")] = None
    position: Annotated[int | None, Field(title="Position")] = None
    pricing_effect: Annotated[PricingEffect | None, Field(title="Pricing Effect")] = None
    pricing_value: Annotated[PricingValue | None, Field(title="Pricing Value")] = None


class DealLineRead(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    deal_key: Annotated[str, Field(title="Deal Key")]
    label: Annotated[str | None, Field(title="Label")]
    position: Annotated[int | None, Field(title="Position")]
    pricing_effect: Annotated[str | None, Field(title="Pricing Effect")]
    pricing_value: Annotated[str | None, Field(title="Pricing Value")]


class OrderDealRead(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    ref: Annotated[str | None, Field(title="Ref")]


class Delivery(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    assigned_at: Annotated[AwareDatetime | None, Field(title="Assigned At")]
    cancelled_at: Annotated[AwareDatetime | None, Field(title="Cancelled At")]
    carrier: Annotated[str, Field(title="Carrier")]
    carrier_ref: Annotated[str | None, Field(title="Carrier Ref")]
    delivered_at: Annotated[AwareDatetime | None, Field(title="Delivered At")]
    driver_latitude: Annotated[str | None, Field(title="Driver Latitude")]
    driver_longitude: Annotated[str | None, Field(title="Driver Longitude")]
    driver_name: Annotated[str | None, Field(title="Driver Name")]
    driver_phone: Annotated[str | None, Field(title="Driver Phone")]
    driver_phone_access_code: Annotated[str | None, Field(title="Driver Phone Access Code")]
    driver_pickup_url: Annotated[str | None, Field(title="Driver Pickup Url")]
    driver_position_updated_at: Annotated[AwareDatetime | None, Field(title="Driver Position Updated At")]
    estimated_dropoff_at: Annotated[AwareDatetime | None, Field(title="Estimated Dropoff At")]
    estimated_pickup_at: Annotated[AwareDatetime | None, Field(title="Estimated Pickup At")]
    fee: Annotated[str | None, Field(title="Fee")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    location_id: Annotated[
        str,
        Field(
            examples=["4k3jxr-1"],
            pattern="^[2-9a-km-np-z]{6,13}-[1-9][0-9]{0,8}$",
            title="Location Id",
        ),
    ]
    order_id: Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Order Id"),
    ]
    pickup_at: Annotated[AwareDatetime | None, Field(title="Pickup At")]
    ref: Annotated[str | None, Field(title="Ref")]
    status: Annotated[
        Literal[
            "pending",
            "pickup_enroute",
            "pickup_approaching",
            "pickup_waiting",
            "dropoff_enroute",
            "dropoff_approaching",
            "dropoff_waiting",
            "delivered",
            "cancelled",
        ],
        Field(title="Status"),
    ]
    tracking_url: Annotated[str | None, Field(title="Tracking Url")]


AssignedAt = TypeAliasType(
    "AssignedAt",
    Annotated[
        str,
        Field(
            description="ISO 8601 time, from 1900 to 8999; without offset it is read in the location's timezone.",
            examples=["2026-06-24T17:07:53+02:00"],
            pattern="^(19[0-9]{2}|[2-8][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$",
            title="Assigned At",
        ),
    ],
)


CancelledAt = TypeAliasType(
    "CancelledAt",
    Annotated[
        str,
        Field(
            description="ISO 8601 time, from 1900 to 8999; without offset it is read in the location's timezone.",
            examples=["2026-06-24T17:07:53+02:00"],
            pattern="^(19[0-9]{2}|[2-8][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$",
            title="Cancelled At",
        ),
    ],
)


CarrierRef = TypeAliasType(
    "CarrierRef",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Carrier Ref")],
)


DeliveredAt = TypeAliasType(
    "DeliveredAt",
    Annotated[
        str,
        Field(
            description="ISO 8601 time, from 1900 to 8999; without offset it is read in the location's timezone.",
            examples=["2026-06-24T17:07:53+02:00"],
            pattern="^(19[0-9]{2}|[2-8][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$",
            title="Delivered At",
        ),
    ],
)


DriverLatitude = TypeAliasType(
    "DriverLatitude",
    Annotated[
        str,
        Field(
            description="Exact decimal between -90 and 90: a string, or a JSON number on write.",
            pattern="^-?(90(\\.0{1,30})?|[0-8]?[0-9](\\.[0-9]{1,30})?)$",
            title="Driver Latitude",
        ),
    ],
)


DriverLatitude1 = TypeAliasType(
    "DriverLatitude1",
    Annotated[
        float,
        Field(
            description="Exact decimal between -90 and 90: a string, or a JSON number on write.",
            ge=-90.0,
            le=90.0,
            multiple_of=1e-30,
            title="Driver Latitude",
        ),
    ],
)


DriverLongitude = TypeAliasType(
    "DriverLongitude",
    Annotated[
        str,
        Field(
            description="Exact decimal between -180 and 180: a string, or a JSON number on write.",
            pattern="^-?(180(\\.0{1,30})?|(1[0-7][0-9]|[0-9]{1,2})(\\.[0-9]{1,30})?)$",
            title="Driver Longitude",
        ),
    ],
)


DriverLongitude1 = TypeAliasType(
    "DriverLongitude1",
    Annotated[
        float,
        Field(
            description="Exact decimal between -180 and 180: a string, or a JSON number on write.",
            ge=-180.0,
            le=180.0,
            multiple_of=1e-30,
            title="Driver Longitude",
        ),
    ],
)


DriverName = TypeAliasType(
    "DriverName",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Driver Name")],
)


DriverPhone = TypeAliasType(
    "DriverPhone",
    Annotated[
        str,
        Field(
            description="E.164 (other formats are deprecated)",
            examples=["+33612345678"],
            max_length=64,
            pattern="^(\\+(1[0-9]{7,10}|7[0-9]{10,14}|20[0-9]{8,10}|27[0-9]{5,10}|30[0-9]{10,12}|31[0-9]{5,11}|32[0-9]{8,9}|33[0-9]{9,9}|34[0-9]{9,9}|36[0-9]{8,9}|39[0-9]{6,12}|40[0-9]{6,9}|41[0-9]{9,12}|43[0-9]{4,13}|44[0-9]{7,10}|45[0-9]{8,8}|46[0-9]{6,12}|47[0-9]{5,8}|48[0-9]{6,10}|49[0-9]{4,15}|51[0-9]{8,9}|52[0-9]{10,10}|53[0-9]{6,10}|54[0-9]{10,11}|55[0-9]{8,11}|56[0-9]{9,11}|57[0-9]{8,11}|58[0-9]{10,10}|60[0-9]{8,10}|61[0-9]{5,12}|62[0-9]{7,17}|63[0-9]{6,13}|64[0-9]{5,10}|65[0-9]{8,11}|66[0-9]{8,13}|81[0-9]{8,17}|82[0-9]{5,14}|84[0-9]{7,10}|86[0-9]{7,12}|90[0-9]{7,13}|91[0-9]{8,13}|92[0-9]{8,12}|93[0-9]{9,9}|94[0-9]{9,9}|95[0-9]{6,10}|98[0-9]{4,10}|211[0-9]{9,9}|212[0-9]{9,9}|213[0-9]{8,9}|216[0-9]{8,8}|218[0-9]{9,9}|220[0-9]{7,9}|221[0-9]{9,9}|222[0-9]{8,8}|223[0-9]{8,8}|224[0-9]{8,9}|225[0-9]{10,10}|226[0-9]{8,8}|227[0-9]{8,8}|228[0-9]{8,8}|229[0-9]{10,10}|230[0-9]{7,10}|231[0-9]{7,9}|232[0-9]{8,8}|233[0-9]{8,9}|234[0-9]{10,14}|235[0-9]{8,8}|236[0-9]{8,8}|237[0-9]{8,9}|238[0-9]{7,7}|239[0-9]{7,7}|240[0-9]{9,9}|241[0-9]{7,8}|242[0-9]{9,9}|243[0-9]{7,10}|244[0-9]{9,9}|245[0-9]{7,9}|246[0-9]{7,7}|247[0-9]{5,6}|248[0-9]{7,7}|249[0-9]{9,9}|250[0-9]{8,9}|251[0-9]{9,9}|252[0-9]{6,9}|253[0-9]{8,8}|254[0-9]{7,10}|255[0-9]{9,9}|256[0-9]{9,9}|257[0-9]{8,8}|258[0-9]{8,9}|260[0-9]{9,9}|261[0-9]{9,9}|262[0-9]{9,9}|263[0-9]{7,10}|264[0-9]{8,9}|265[0-9]{7,9}|266[0-9]{8,8}|267[0-9]{7,10}|268[0-9]{8,9}|269[0-9]{7,7}|290[0-9]{4,5}|291[0-9]{7,7}|297[0-9]{7,7}|298[0-9]{6,6}|299[0-9]{6,6}|350[0-9]{8,8}|351[0-9]{9,9}|352[0-9]{4,11}|353[0-9]{7,10}|354[0-9]{7,9}|355[0-9]{6,9}|356[0-9]{8,8}|357[0-9]{8,8}|358[0-9]{5,12}|359[0-9]{6,12}|370[0-9]{8,8}|371[0-9]{8,8}|372[0-9]{7,10}|373[0-9]{8,8}|374[0-9]{8,8}|375[0-9]{6,11}|376[0-9]{6,9}|377[0-9]{8,9}|378[0-9]{8,10}|380[0-9]{9,10}|381[0-9]{6,12}|382[0-9]{8,9}|383[0-9]{8,12}|385[0-9]{7,9}|386[0-9]{5,8}|387[0-9]{8,9}|389[0-9]{8,8}|420[0-9]{9,12}|421[0-9]{6,9}|423[0-9]{7,9}|500[0-9]{5,5}|501[0-9]{7,11}|502[0-9]{8,11}|503[0-9]{7,11}|504[0-9]{8,11}|505[0-9]{8,8}|506[0-9]{8,10}|507[0-9]{7,11}|508[0-9]{6,9}|509[0-9]{8,8}|590[0-9]{9,9}|591[0-9]{8,9}|592[0-9]{7,7}|593[0-9]{8,11}|594[0-9]{9,9}|595[0-9]{6,11}|596[0-9]{9,9}|597[0-9]{6,7}|598[0-9]{4,13}|599[0-9]{7,8}|670[0-9]{7,8}|672[0-9]{6,6}|673[0-9]{7,7}|674[0-9]{7,7}|675[0-9]{7,8}|676[0-9]{5,7}|677[0-9]{5,7}|678[0-9]{5,7}|679[0-9]{7,11}|680[0-9]{7,7}|681[0-9]{6,9}|682[0-9]{5,5}|683[0-9]{4,7}|685[0-9]{5,10}|686[0-9]{5,8}|687[0-9]{6,6}|688[0-9]{5,7}|689[0-9]{6,9}|690[0-9]{4,7}|691[0-9]{7,7}|692[0-9]{7,7}|800[0-9]{8,8}|808[0-9]{8,8}|850[0-9]{8,10}|852[0-9]{5,11}|853[0-9]{7,8}|855[0-9]{8,10}|856[0-9]{8,10}|870[0-9]{9,12}|878[0-9]{12,12}|880[0-9]{6,10}|881[0-9]{9,10}|882[0-9]{7,12}|883[0-9]{8,12}|886[0-9]{7,11}|888[0-9]{11,11}|960[0-9]{7,10}|961[0-9]{7,8}|962[0-9]{8,9}|963[0-9]{8,9}|964[0-9]{8,10}|965[0-9]{7,8}|966[0-9]{9,10}|967[0-9]{7,9}|968[0-9]{7,9}|970[0-9]{8,10}|971[0-9]{5,12}|972[0-9]{7,12}|973[0-9]{8,8}|974[0-9]{7,11}|975[0-9]{7,8}|976[0-9]{8,10}|977[0-9]{8,11}|979[0-9]{9,9}|992[0-9]{9,9}|993[0-9]{8,8}|994[0-9]{9,9}|995[0-9]{9,9}|996[0-9]{9,10}|998[0-9]{9,9})|[^+\\s\\u0000][^\\u0000]*)$",
            title="Driver Phone",
        ),
    ],
)


DriverPhoneAccessCode = TypeAliasType(
    "DriverPhoneAccessCode",
    Annotated[
        str,
        Field(max_length=64, pattern="^[^\\u0000]*$", title="Driver Phone Access Code"),
    ],
)


DriverPickupUrl = TypeAliasType(
    "DriverPickupUrl",
    Annotated[str, Field(max_length=2000, pattern="^[^\\u0000]*$", title="Driver Pickup Url")],
)


DriverPositionUpdatedAt = TypeAliasType(
    "DriverPositionUpdatedAt",
    Annotated[
        str,
        Field(
            description="ISO 8601 time, from 1900 to 8999; without offset it is read in the location's timezone.",
            examples=["2026-06-24T17:07:53+02:00"],
            pattern="^(19[0-9]{2}|[2-8][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$",
            title="Driver Position Updated At",
        ),
    ],
)


EstimatedDropoffAt = TypeAliasType(
    "EstimatedDropoffAt",
    Annotated[
        str,
        Field(
            description="ISO 8601 time, from 1900 to 8999; without offset it is read in the location's timezone.",
            examples=["2026-06-24T17:07:53+02:00"],
            pattern="^(19[0-9]{2}|[2-8][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$",
            title="Estimated Dropoff At",
        ),
    ],
)


EstimatedPickupAt = TypeAliasType(
    "EstimatedPickupAt",
    Annotated[
        str,
        Field(
            description="ISO 8601 time, from 1900 to 8999; without offset it is read in the location's timezone.",
            examples=["2026-06-24T17:07:53+02:00"],
            pattern="^(19[0-9]{2}|[2-8][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$",
            title="Estimated Pickup At",
        ),
    ],
)


Fee = TypeAliasType("Fee", Annotated[str, Field(max_length=64, pattern="^[^\\u0000]*$", title="Fee")])


PickupAt = TypeAliasType(
    "PickupAt",
    Annotated[
        str,
        Field(
            description="ISO 8601 time, from 1900 to 8999; without offset it is read in the location's timezone.",
            examples=["2026-06-24T17:07:53+02:00"],
            pattern="^(19[0-9]{2}|[2-8][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$",
            title="Pickup At",
        ),
    ],
)


TrackingUrl = TypeAliasType(
    "TrackingUrl",
    Annotated[str, Field(max_length=2000, pattern="^[^\\u0000]*$", title="Tracking Url")],
)


class DeliveryCreate(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    assigned_at: Annotated[AssignedAt | None, Field(title="Assigned At")] = None
    cancelled_at: Annotated[CancelledAt | None, Field(title="Cancelled At")] = None
    carrier: Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Carrier")]
    carrier_ref: Annotated[CarrierRef | None, Field(title="Carrier Ref")] = None
    delivered_at: Annotated[DeliveredAt | None, Field(title="Delivered At")] = None
    driver_latitude: Annotated[DriverLatitude | DriverLatitude1 | None, Field(title="Driver Latitude")] = None
    driver_longitude: Annotated[DriverLongitude | DriverLongitude1 | None, Field(title="Driver Longitude")] = None
    driver_name: Annotated[DriverName | None, Field(title="Driver Name")] = None
    driver_phone: Annotated[DriverPhone | None, Field(title="Driver Phone")] = None
    driver_phone_access_code: Annotated[DriverPhoneAccessCode | None, Field(title="Driver Phone Access Code")] = None
    driver_pickup_url: Annotated[DriverPickupUrl | None, Field(title="Driver Pickup Url")] = None
    driver_position_updated_at: Annotated[DriverPositionUpdatedAt | None, Field(title="Driver Position Updated At")] = (
        None
    )
    estimated_dropoff_at: Annotated[EstimatedDropoffAt | None, Field(title="Estimated Dropoff At")] = None
    estimated_pickup_at: Annotated[EstimatedPickupAt | None, Field(title="Estimated Pickup At")] = None
    fee: Annotated[Fee | None, Field(title="Fee")] = None
    pickup_at: Annotated[PickupAt | None, Field(title="Pickup At")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    status: Annotated[
        Literal[
            "pending",
            "pickup_enroute",
            "pickup_approaching",
            "pickup_waiting",
            "dropoff_enroute",
            "dropoff_approaching",
            "dropoff_waiting",
            "delivered",
            "cancelled",
        ],
        Field(title="Status"),
    ]
    tracking_url: Annotated[TrackingUrl | None, Field(title="Tracking Url")] = None


class DeliveryUpdate(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    assigned_at: Annotated[AssignedAt | None, Field(title="Assigned At")] = None
    cancelled_at: Annotated[CancelledAt | None, Field(title="Cancelled At")] = None
    delivered_at: Annotated[DeliveredAt | None, Field(title="Delivered At")] = None
    driver_latitude: Annotated[DriverLatitude | DriverLatitude1 | None, Field(title="Driver Latitude")] = None
    driver_longitude: Annotated[DriverLongitude | DriverLongitude1 | None, Field(title="Driver Longitude")] = None
    driver_name: Annotated[DriverName | None, Field(title="Driver Name")] = None
    driver_phone: Annotated[DriverPhone | None, Field(title="Driver Phone")] = None
    driver_phone_access_code: Annotated[DriverPhoneAccessCode | None, Field(title="Driver Phone Access Code")] = None
    driver_pickup_url: Annotated[DriverPickupUrl | None, Field(title="Driver Pickup Url")] = None
    driver_position_updated_at: Annotated[DriverPositionUpdatedAt | None, Field(title="Driver Position Updated At")] = (
        None
    )
    estimated_dropoff_at: Annotated[EstimatedDropoffAt | None, Field(title="Estimated Dropoff At")] = None
    estimated_pickup_at: Annotated[EstimatedPickupAt | None, Field(title="Estimated Pickup At")] = None
    pickup_at: Annotated[PickupAt | None, Field(title="Pickup At")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    status: Annotated[
        Literal[
            "pending",
            "pickup_enroute",
            "pickup_approaching",
            "pickup_waiting",
            "dropoff_enroute",
            "dropoff_approaching",
            "dropoff_waiting",
            "delivered",
            "cancelled",
        ]
        | None,
        Field(title="Status"),
    ] = None
    tracking_url: Annotated[TrackingUrl | None, Field(title="Tracking Url")] = None


class Discount(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    coupon_codes: Annotated[list[str], Field(title="Coupon Codes")]
    description: Annotated[str | None, Field(title="Description")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    image_ids: Annotated[list[ImageId], Field(title="Image Ids")]
    name: Annotated[str, Field(title="Name")]
    pricing_effect: Annotated[str, Field(title="Pricing Effect")]
    pricing_value: Annotated[str, Field(title="Pricing Value")]
    ref: Annotated[str | None, Field(title="Ref")]
    restrictions: Annotated[dict[str, Any] | None, Field(title="Restrictions")]


class OrderDiscount(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Name")]
    price_off: Annotated[
        str,
        Field(
            description="Amount, a space and an ISO 4217 currency; read back with 2 decimals.",
            examples=["12.50 EUR"],
            pattern="^[0-9]{1,15}(\\.[0-9]{1,2})? [A-Z]{3}$",
            title="Price Off",
        ),
    ]
    pricing_effect: Annotated[PricingEffect | None, Field(title="Pricing Effect")] = None
    pricing_value: Annotated[PricingValue | None, Field(title="Pricing Value")] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None


class OrderDiscountRead(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    deleted: Annotated[bool, Field(title="Deleted")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    name: Annotated[str, Field(title="Name")]
    price_off: Annotated[str, Field(title="Price Off")]
    pricing_effect: Annotated[str | None, Field(title="Pricing Effect")]
    pricing_value: Annotated[str | None, Field(title="Pricing Value")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    ref: Annotated[str | None, Field(title="Ref")]


class ElementDelete(BaseModel):
    """
    Deletes the element `id` of the order, for good.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    deleted: Annotated[Literal[True], Field(title="Deleted")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]


class ElementRef(BaseModel):
    """
    Sets (or with null, removes) your private ref of the element `id` of the order.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")]


class ErrorBody(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    error_type: Annotated[str, Field(title="Error Type")]
    message: Annotated[str, Field(title="Message")]


class Event(BaseModel):
    """
    A full event: new_state for create and update, previous_state for update
    and delete, state_change for inventory patch, no state for catalog events.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    account_id: Annotated[str | None, Field(title="Account Id")] = None
    catalog_id: Annotated[str | None, Field(title="Catalog Id")] = None
    created_at: Annotated[AwareDatetime, Field(examples=["2026-06-24T17:07:53+02:00"], title="Created At")]
    customer_id: Annotated[str | None, Field(title="Customer Id")] = None
    customer_list_id: Annotated[str | None, Field(title="Customer List Id")] = None
    delivery_id: Annotated[str | None, Field(title="Delivery Id")] = None
    event_type: Annotated[str, Field(title="Event Type")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    location_id: Annotated[str | None, Field(title="Location Id")] = None
    new_state: Annotated[dict[str, Any] | None, Field(title="New State")] = None
    order_id: Annotated[str | None, Field(title="Order Id")] = None
    previous_state: Annotated[dict[str, Any] | None, Field(title="Previous State")] = None
    resource_type: Annotated[str, Field(title="Resource Type")]
    state_change: Annotated[list[dict[str, Any]] | None, Field(title="State Change")] = None


class EventSummary(BaseModel):
    """
    An event as listed: without its states. The id fields present depend on
    the resource type (docs/api/callbacks-events.md "Event payloads").
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    account_id: Annotated[str | None, Field(title="Account Id")] = None
    catalog_id: Annotated[str | None, Field(title="Catalog Id")] = None
    created_at: Annotated[AwareDatetime, Field(examples=["2026-06-24T17:07:53+02:00"], title="Created At")]
    customer_id: Annotated[str | None, Field(title="Customer Id")] = None
    customer_list_id: Annotated[str | None, Field(title="Customer List Id")] = None
    delivery_id: Annotated[str | None, Field(title="Delivery Id")] = None
    event_type: Annotated[str, Field(title="Event Type")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    location_id: Annotated[str | None, Field(title="Location Id")] = None
    order_id: Annotated[str | None, Field(title="Order Id")] = None
    resource_type: Annotated[str, Field(title="Resource Type")]


class FieldErrorBody(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    field: Annotated[str, Field(title="Field")]
    message: Annotated[str, Field(title="Message")]


class GuestCustomer(BaseModel):
    """
    A guest order's customer data (docs/api/orders.md): the customer fields, no private ref.
    Its phone never makes the order fail: one that is not E.164 is kept as given.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    address_1: Annotated[Address1 | None, Field(title="Address 1")] = None
    address_2: Annotated[Address2 | None, Field(title="Address 2")] = None
    birth_date: Annotated[BirthDate | None, Field(title="Birth Date")] = None
    city: Annotated[City | None, Field(title="City")] = None
    company_name: Annotated[CompanyName | None, Field(title="Company Name")] = None
    country: Annotated[
        Literal[
            "AD",
            "AE",
            "AF",
            "AG",
            "AI",
            "AL",
            "AM",
            "AO",
            "AQ",
            "AR",
            "AS",
            "AT",
            "AU",
            "AW",
            "AX",
            "AZ",
            "BA",
            "BB",
            "BD",
            "BE",
            "BF",
            "BG",
            "BH",
            "BI",
            "BJ",
            "BL",
            "BM",
            "BN",
            "BO",
            "BQ",
            "BR",
            "BS",
            "BT",
            "BV",
            "BW",
            "BY",
            "BZ",
            "CA",
            "CC",
            "CD",
            "CF",
            "CG",
            "CH",
            "CI",
            "CK",
            "CL",
            "CM",
            "CN",
            "CO",
            "CR",
            "CU",
            "CV",
            "CW",
            "CX",
            "CY",
            "CZ",
            "DE",
            "DJ",
            "DK",
            "DM",
            "DO",
            "DZ",
            "EC",
            "EE",
            "EG",
            "EH",
            "ER",
            "ES",
            "ET",
            "FI",
            "FJ",
            "FK",
            "FM",
            "FO",
            "FR",
            "GA",
            "GB",
            "GD",
            "GE",
            "GF",
            "GG",
            "GH",
            "GI",
            "GL",
            "GM",
            "GN",
            "GP",
            "GQ",
            "GR",
            "GS",
            "GT",
            "GU",
            "GW",
            "GY",
            "HK",
            "HM",
            "HN",
            "HR",
            "HT",
            "HU",
            "ID",
            "IE",
            "IL",
            "IM",
            "IN",
            "IO",
            "IQ",
            "IR",
            "IS",
            "IT",
            "JE",
            "JM",
            "JO",
            "JP",
            "KE",
            "KG",
            "KH",
            "KI",
            "KM",
            "KN",
            "KP",
            "KR",
            "KW",
            "KY",
            "KZ",
            "LA",
            "LB",
            "LC",
            "LI",
            "LK",
            "LR",
            "LS",
            "LT",
            "LU",
            "LV",
            "LY",
            "MA",
            "MC",
            "MD",
            "ME",
            "MF",
            "MG",
            "MH",
            "MK",
            "ML",
            "MM",
            "MN",
            "MO",
            "MP",
            "MQ",
            "MR",
            "MS",
            "MT",
            "MU",
            "MV",
            "MW",
            "MX",
            "MY",
            "MZ",
            "NA",
            "NC",
            "NE",
            "NF",
            "NG",
            "NI",
            "NL",
            "NO",
            "NP",
            "NR",
            "NU",
            "NZ",
            "OM",
            "PA",
            "PE",
            "PF",
            "PG",
            "PH",
            "PK",
            "PL",
            "PM",
            "PN",
            "PR",
            "PS",
            "PT",
            "PW",
            "PY",
            "QA",
            "RE",
            "RO",
            "RS",
            "RU",
            "RW",
            "SA",
            "SB",
            "SC",
            "SD",
            "SE",
            "SG",
            "SH",
            "SI",
            "SJ",
            "SK",
            "SL",
            "SM",
            "SN",
            "SO",
            "SR",
            "SS",
            "ST",
            "SV",
            "SX",
            "SY",
            "SZ",
            "TC",
            "TD",
            "TF",
            "TG",
            "TH",
            "TJ",
            "TK",
            "TL",
            "TM",
            "TN",
            "TO",
            "TR",
            "TT",
            "TV",
            "TW",
            "TZ",
            "UA",
            "UG",
            "UM",
            "US",
            "UY",
            "UZ",
            "VA",
            "VC",
            "VE",
            "VG",
            "VI",
            "VN",
            "VU",
            "WF",
            "WS",
            "YE",
            "YT",
            "ZA",
            "ZM",
            "ZW",
        ]
        | None,
        Field(title="Country"),
    ] = None
    custom_fields: Annotated[
        dict[Annotated[str, StringConstraints(pattern=r"^[^\u0000]*$")], Any] | None,
        Field(
            description="At most 8 KB as JSON. On update a null value removes the key, other keys are added or replaced, absent keys are kept.",
            title="Custom Fields",
        ),
    ] = None
    delivery_notes: Annotated[DeliveryNotes | None, Field(title="Delivery Notes")] = None
    email: Annotated[Email | None, Field(title="Email")] = None
    email_marketing: Annotated[bool | None, Field(title="Email Marketing")] = False
    first_name: Annotated[FirstName | None, Field(title="First Name")] = None
    gender: Annotated[Literal["male", "female"] | None, Field(title="Gender")] = None
    last_name: Annotated[LastName | None, Field(title="Last Name")] = None
    latitude: Annotated[Latitude | Latitude1 | None, Field(title="Latitude")] = None
    longitude: Annotated[Longitude | Longitude1 | None, Field(title="Longitude")] = None
    phone: Annotated[str | None, Field(title="Phone")] = None
    phone_access_code: Annotated[PhoneAccessCode | None, Field(title="Phone Access Code")] = None
    postal_code: Annotated[PostalCode | None, Field(title="Postal Code")] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    sms_marketing: Annotated[bool | None, Field(title="Sms Marketing")] = False
    state: Annotated[State | None, Field(title="State")] = None


class Image(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    md5: Annotated[str, Field(title="Md5")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    seconds_before_removal: Annotated[int | None, Field(title="Seconds Before Removal")]
    size: Annotated[int, Field(title="Size")]
    type: Annotated[str, Field(title="Type")]


class InventoryEntry(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    expires_at: Annotated[AwareDatetime | None, Field(title="Expires At")]
    option_ref: Annotated[str | None, Field(title="Option Ref")]
    sku_ref: Annotated[str | None, Field(title="Sku Ref")]
    stock: Annotated[str | None, Field(title="Stock")]


CustomerNotes = TypeAliasType(
    "CustomerNotes",
    Annotated[str, Field(max_length=5000, pattern="^[^\\u0000]*$", title="Customer Notes")],
)


PointsEarned = TypeAliasType(
    "PointsEarned",
    Annotated[
        str,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            pattern="^-?[0-9]{1,30}(\\.[0-9]{1,30})?$",
            title="Points Earned",
        ),
    ],
)


PointsEarned1 = TypeAliasType(
    "PointsEarned1",
    Annotated[
        float,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            ge=-1e30,
            le=1e30,
            multiple_of=1e-30,
            title="Points Earned",
        ),
    ],
)


PointsUsed = TypeAliasType(
    "PointsUsed",
    Annotated[
        str,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            pattern="^-?[0-9]{1,30}(\\.[0-9]{1,30})?$",
            title="Points Used",
        ),
    ],
)


PointsUsed1 = TypeAliasType(
    "PointsUsed1",
    Annotated[
        float,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            ge=-1e30,
            le=1e30,
            multiple_of=1e-30,
            title="Points Used",
        ),
    ],
)


Quantity = TypeAliasType(
    "Quantity",
    Annotated[
        str,
        Field(
            examples=["2"],
            pattern="^([1-9][0-9]{0,5}(\\.[0-9]{1,30})?|1000000(\\.0{1,30})?|0\\.[0-9]{0,29}[1-9])$",
            title="Quantity",
        ),
    ],
)


Quantity1 = TypeAliasType(
    "Quantity1",
    Annotated[float, Field(examples=["2"], gt=0.0, le=1000000.0, title="Quantity")],
)


SkuName = TypeAliasType(
    "SkuName",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Sku Name")],
)


SkuRef = TypeAliasType(
    "SkuRef",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Sku Ref")],
)


class LoyaltyCard(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    balance: Annotated[str, Field(title="Balance")]
    customer_id: Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Customer Id"),
    ]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    name: Annotated[str | None, Field(title="Name")]
    ref: Annotated[str | None, Field(title="Ref")]


Name = TypeAliasType("Name", Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Name")])


class LoyaltyCardCreate(BaseModel):
    """
    POST body: `customer_id` required (a customer of the list).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    customer_id: Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Customer Id"),
    ]
    name: Annotated[Name | None, Field(title="Name")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None


class LoyaltyCardSummary(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    balance: Annotated[str, Field(title="Balance")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    name: Annotated[str | None, Field(title="Name")]
    ref: Annotated[str | None, Field(title="Ref")]


class LoyaltyCardUpdate(BaseModel):
    """
    PATCH/PUT body: `name` and `ref` only; `customer_id` and `balance` are
    read-only and ignored.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[Name | None, Field(title="Name")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None


OrderId = TypeAliasType(
    "OrderId",
    Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Order Id"),
    ],
)


OrderLocationId = TypeAliasType(
    "OrderLocationId",
    Annotated[
        str,
        Field(
            examples=["4k3jxr-1"],
            pattern="^[2-9a-km-np-z]{6,13}-[1-9][0-9]{0,8}$",
            title="Order Location Id",
        ),
    ],
)


class LoyaltyOperation(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    created_at: Annotated[AwareDatetime, Field(examples=["2026-06-24T17:07:53+02:00"], title="Created At")]
    customer_id: Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Customer Id"),
    ]
    delta: Annotated[str, Field(title="Delta")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    new_balance: Annotated[str, Field(title="New Balance")]
    order_id: Annotated[OrderId | None, Field(title="Order Id")]
    order_location_id: Annotated[OrderLocationId | None, Field(title="Order Location Id")]
    reason: Annotated[str | None, Field(title="Reason")]


Delta = TypeAliasType(
    "Delta",
    Annotated[
        str,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            pattern="^-?[0-9]{1,30}(\\.[0-9]{1,30})?$",
            title="Delta",
        ),
    ],
)


Delta1 = TypeAliasType(
    "Delta1",
    Annotated[
        float,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            ge=-1e30,
            le=1e30,
            multiple_of=1e-30,
            title="Delta",
        ),
    ],
)


Reason = TypeAliasType(
    "Reason",
    Annotated[str, Field(max_length=1000, pattern="^[^\\u0000]*$", title="Reason")],
)


class LoyaltyOperationCreate(BaseModel):
    """
    POST body: `delta` required, an exact decimal (string or JSON number).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    delta: Annotated[
        Delta | Delta1,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            title="Delta",
        ),
    ]
    order_id: Annotated[OrderId | None, Field(title="Order Id")] = None
    reason: Annotated[Reason | None, Field(title="Reason")] = None


class OrderLoyaltyOperation(BaseModel):
    """
    docs/api/orders.md "Loyalty operations": the customer's card by `ref` (null allowed),
    created with `name` when the customer has none.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    delta: Annotated[
        Delta | Delta1,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            title="Delta",
        ),
    ]
    name: Annotated[Name | None, Field(title="Name")] = None
    reason: Annotated[Reason | None, Field(title="Reason")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None


class OrderLoyaltyOperationRead(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    delta: Annotated[str, Field(title="Delta")]
    name: Annotated[str | None, Field(title="Name")]
    new_balance: Annotated[str, Field(title="New Balance")]
    reason: Annotated[str | None, Field(title="Reason")]
    ref: Annotated[str | None, Field(title="Ref")]


class Option(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    default: Annotated[bool, Field(title="Default")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    name: Annotated[str, Field(title="Name")]
    option_list_id: Annotated[
        str,
        Field(
            examples=["4k3jxr"],
            pattern="^[2-9a-km-np-z]{6,13}$",
            title="Option List Id",
        ),
    ]
    price: Annotated[str, Field(title="Price")]
    price_overrides: Annotated[list[dict[str, Any]], Field(title="Price Overrides")]
    ref: Annotated[str | None, Field(title="Ref")]
    restrictions: Annotated[dict[str, Any] | None, Field(title="Restrictions")]
    tags: Annotated[list[str], Field(title="Tags")]


OptionListName = TypeAliasType(
    "OptionListName",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Option List Name")],
)


Price = TypeAliasType(
    "Price",
    Annotated[
        str,
        Field(
            description="Amount, a space and an ISO 4217 currency; read back with 2 decimals.",
            examples=["12.50 EUR"],
            pattern="^[0-9]{1,15}(\\.[0-9]{1,2})? [A-Z]{3}$",
            title="Price",
        ),
    ],
)


class ItemOption(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Name")]
    option_list_name: Annotated[OptionListName | None, Field(title="Option List Name")] = None
    price: Annotated[Price | None, Field(title="Price")] = None
    quantity: Annotated[int | None, Field(ge=1, le=1000000, title="Quantity")] = 1
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    removed: Annotated[bool | None, Field(title="Removed")] = False


class OptionList(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    max_selections: Annotated[int | None, Field(title="Max Selections")]
    min_selections: Annotated[int, Field(title="Min Selections")]
    name: Annotated[str, Field(title="Name")]
    options: Annotated[list[Option], Field(title="Options")]
    ref: Annotated[str, Field(title="Ref")]
    tags: Annotated[list[str], Field(title="Tags")]
    type: Annotated[str, Field(title="Type")]


class ItemOptionRead(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    option_list_name: Annotated[str | None, Field(title="Option List Name")]
    price: Annotated[str | None, Field(title="Price")]
    quantity: Annotated[int, Field(title="Quantity")]
    ref: Annotated[str | None, Field(title="Ref")]
    removed: Annotated[bool, Field(title="Removed")]


CustomerId = TypeAliasType(
    "CustomerId",
    Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Customer Id"),
    ],
)


CustomerListId = TypeAliasType(
    "CustomerListId",
    Annotated[
        str,
        Field(
            examples=["4k3jxr"],
            pattern="^[2-9a-km-np-z]{6,13}$",
            title="Customer List Id",
        ),
    ],
)


class OrderAcceptance(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    extra_preparation_time: Annotated[int | None, Field(title="Extra Preparation Time")]
    mode: Annotated[Literal["normal", "busy", "paused"], Field(title="Mode")]
    reason: Annotated[str | None, Field(title="Reason")]
    resume_at: Annotated[
        AwareDatetime | None,
        Field(description="Time at which the mode reverts to normal", title="Resume At"),
    ]


ExtraPreparationTime = TypeAliasType(
    "ExtraPreparationTime",
    Annotated[int, Field(ge=0, le=10080, title="Extra Preparation Time")],
)


ExtraPreparationTime1 = TypeAliasType("ExtraPreparationTime1", Annotated[None, Field(title="Extra Preparation Time")])


Reason3 = TypeAliasType("Reason3", Annotated[None, Field(title="Reason")])


ResumeAt = TypeAliasType(
    "ResumeAt",
    Annotated[
        str,
        Field(
            description="ISO 8601 time, from 1900 to 8999; without offset it is read in the location's timezone.",
            examples=["2026-06-24T17:07:53+02:00"],
            pattern="^(19[0-9]{2}|[2-8][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$",
            title="Resume At",
        ),
    ],
)


class OrderAcceptanceUpdate(BaseModel):
    """
    One of `{mode: normal}`, `{mode: busy, resume_at?, extra_preparation_time}`,
    `{mode: paused, resume_at?, reason?}` (docs/api/locations-accounts.md).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    extra_preparation_time: Annotated[
        ExtraPreparationTime | ExtraPreparationTime1 | None,
        Field(title="Extra Preparation Time"),
    ] = None
    mode: Annotated[Literal["normal", "busy", "paused"], Field(title="Mode")]
    reason: Annotated[Reason | Reason3 | None, Field(title="Reason")] = None
    resume_at: Annotated[ResumeAt | None, Field(description="In the future", title="Resume At")] = None


Channel = TypeAliasType(
    "Channel",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Channel")],
)


CollectionCode = TypeAliasType(
    "CollectionCode",
    Annotated[str, Field(max_length=64, pattern="^[^\\u0000]*$", title="Collection Code")],
)


ConfirmedTime = TypeAliasType(
    "ConfirmedTime",
    Annotated[
        str,
        Field(
            description="ISO 8601 time, from 1900 to 8999; without offset it is read in the location's timezone.",
            examples=["2026-06-24T17:07:53+02:00"],
            pattern="^(19[0-9]{2}|[2-8][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$",
            title="Confirmed Time",
        ),
    ],
)


CouponCode = TypeAliasType("CouponCode", Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$")])


CustomerPrivateRef = TypeAliasType(
    "CustomerPrivateRef",
    Annotated[
        str,
        Field(
            description="Given with `customer_list_id`, and only then",
            pattern="^[^\\u0000]*$",
            title="Customer Private Ref",
        ),
    ],
)


ExpectedTime = TypeAliasType(
    "ExpectedTime",
    Annotated[
        str,
        Field(
            description="ISO 8601 time, from 1900 to 8999; without offset it is read in the location's timezone.",
            examples=["2026-06-24T17:07:53+02:00"],
            pattern="^(19[0-9]{2}|[2-8][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$",
            title="Expected Time",
        ),
    ],
)


SellerNotes = TypeAliasType(
    "SellerNotes",
    Annotated[str, Field(max_length=5000, pattern="^[^\\u0000]*$", title="Seller Notes")],
)


ServiceTypeRef = TypeAliasType(
    "ServiceTypeRef",
    Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Service Type Ref")],
)


Id = TypeAliasType(
    "Id",
    Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")],
)


class OrderCustomer(BaseModel):
    """
    The customer when it was attached to the order (docs/api/orders.md): the
    Customer read shape, read-only fields included. Its ids and private ref only while the
    customer exists; a guest's has null (or empty) for what it was not given.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    address_1: Annotated[str | None, Field(title="Address 1")]
    address_2: Annotated[str | None, Field(title="Address 2")]
    anonymised: Annotated[bool | None, Field(title="Anonymised")]
    birth_date: Annotated[date | None, Field(title="Birth Date")]
    city: Annotated[str | None, Field(title="City")]
    company_name: Annotated[str | None, Field(title="Company Name")]
    country: Annotated[str | None, Field(title="Country")]
    created_at: Annotated[AwareDatetime | None, Field(title="Created At")]
    custom_fields: Annotated[dict[str, Any], Field(title="Custom Fields")]
    customer_list_id: Annotated[CustomerListId | None, Field(title="Customer List Id")]
    delivery_notes: Annotated[str | None, Field(title="Delivery Notes")]
    email: Annotated[str | None, Field(title="Email")]
    email_marketing: Annotated[bool, Field(title="Email Marketing")]
    first_name: Annotated[str | None, Field(title="First Name")]
    first_order_date: Annotated[AwareDatetime | None, Field(title="First Order Date")]
    gender: Annotated[Literal["male", "female"] | None, Field(title="Gender")]
    id: Annotated[Id | None, Field(title="Id")]
    last_name: Annotated[str | None, Field(title="Last Name")]
    last_order_date: Annotated[AwareDatetime | None, Field(title="Last Order Date")]
    latitude: Annotated[str | None, Field(title="Latitude")]
    longitude: Annotated[str | None, Field(title="Longitude")]
    loyalty_cards: Annotated[list[LoyaltyCardSummary], Field(title="Loyalty Cards")]
    nb_orders: Annotated[int | None, Field(title="Nb Orders")]
    order_total: Annotated[str | None, Field(title="Order Total")]
    phone: Annotated[str | None, Field(title="Phone")]
    phone_access_code: Annotated[str | None, Field(title="Phone Access Code")]
    postal_code: Annotated[str | None, Field(title="Postal Code")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    sms_marketing: Annotated[bool, Field(title="Sms Marketing")]
    state: Annotated[str | None, Field(title="State")]


class Payment(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    amount: Annotated[
        str,
        Field(
            description="Amount, a space and an ISO 4217 currency; read back with 2 decimals.",
            examples=["12.50 EUR"],
            pattern="^[0-9]{1,15}(\\.[0-9]{1,2})? [A-Z]{3}$",
            title="Amount",
        ),
    ]
    info: Annotated[
        dict[Annotated[str, StringConstraints(pattern=r"^[^\u0000]*$")], Any] | None,
        Field(title="Info"),
    ] = None
    name: Annotated[Name | None, Field(title="Name")] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    type: Annotated[Literal["online", "gift_card", "cash"] | None, Field(title="Type")] = "online"


class PaymentRead(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    amount: Annotated[str, Field(title="Amount")]
    deleted: Annotated[bool, Field(title="Deleted")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    info: Annotated[dict[str, Any] | None, Field(title="Info")]
    name: Annotated[str | None, Field(title="Name")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    ref: Annotated[str | None, Field(title="Ref")]
    type: Annotated[str, Field(title="Type")]


class Queued(BaseModel):
    """
    Events queued for one more delivery, marked as redeliveries.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    count: Annotated[
        int,
        Field(description="How many events were queued for redelivery", title="Count"),
    ]


class Quote(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    accepted_at: Annotated[AwareDatetime | None, Field(title="Accepted At")]
    carrier: Annotated[str, Field(title="Carrier")]
    carrier_ref: Annotated[str | None, Field(title="Carrier Ref")]
    estimated_dropoff_at: Annotated[AwareDatetime | None, Field(title="Estimated Dropoff At")]
    estimated_pickup_at: Annotated[AwareDatetime | None, Field(title="Estimated Pickup At")]
    fee: Annotated[str, Field(title="Fee")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    location_id: Annotated[
        str,
        Field(
            examples=["4k3jxr-1"],
            pattern="^[2-9a-km-np-z]{6,13}-[1-9][0-9]{0,8}$",
            title="Location Id",
        ),
    ]
    order_id: Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Order Id"),
    ]
    ref: Annotated[str | None, Field(title="Ref")]


class QuoteCreate(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    carrier: Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Carrier")]
    carrier_ref: Annotated[CarrierRef | None, Field(title="Carrier Ref")] = None
    estimated_dropoff_at: Annotated[EstimatedDropoffAt | None, Field(title="Estimated Dropoff At")] = None
    estimated_pickup_at: Annotated[EstimatedPickupAt | None, Field(title="Estimated Pickup At")] = None
    fee: Annotated[str, Field(max_length=64, pattern="^[^\\u0000]*$", title="Fee")]
    ref: Annotated[Ref | None, Field(title="Ref")] = None


class ReplayRange(BaseModel):
    """
    POST /callback/replay: the events created from `from` (included) to `to` (excluded).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    from_: Annotated[
        Any | None,
        Field(
            alias="from",
            description="ISO 8601 time; UTC when it has no offset",
            title="From",
        ),
    ] = None
    to: Annotated[
        Any | None,
        Field(description="ISO 8601 time, at most 31 days after from", title="To"),
    ] = None


ServiceType = TypeAliasType(
    "ServiceType",
    Annotated[Literal["delivery", "collection", "eat_in"], Field(title="ServiceType")],
)


class SigningSecret(BaseModel):
    """
    The secret of the `webhook-signature` header (docs/api/callbacks-events.md "Verifying a callback").
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    previous_secret_expires_at: Annotated[
        AwareDatetime | None,
        Field(
            description="Until when the previous secret signs too, after a rotation; null when it no longer does",
            title="Previous Secret Expires At",
        ),
    ]
    secret: Annotated[
        str,
        Field(
            description="`whsec_` and the standard base64 of the key's bytes",
            title="Secret",
        ),
    ]


class Sku(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    barcodes: Annotated[list[str], Field(title="Barcodes")]
    custom_fields: Annotated[dict[str, Any], Field(title="Custom Fields")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    name: Annotated[str | None, Field(title="Name")]
    nb_servings: Annotated[int | None, Field(title="Nb Servings")]
    option_list_ids: Annotated[list[ImageId], Field(title="Option List Ids")]
    option_list_refs: Annotated[list[str], Field(title="Option List Refs")]
    price: Annotated[str, Field(title="Price")]
    price_overrides: Annotated[list[dict[str, Any]], Field(title="Price Overrides")]
    product_id: Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Product Id"),
    ]
    ref: Annotated[str | None, Field(title="Ref")]
    restrictions: Annotated[dict[str, Any] | None, Field(title="Restrictions")]
    tags: Annotated[list[str], Field(title="Tags")]
    volume: Annotated[str | None, Field(title="Volume")]
    weight: Annotated[str | None, Field(title="Weight")]


class Slot(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    from_: Annotated[
        str,
        Field(
            alias="from",
            examples=["06:00"],
            pattern="^([01][0-9]|2[0-3]):[0-5][0-9]$",
            title="From",
        ),
    ]
    to: Annotated[
        str,
        Field(examples=["06:00"], pattern="^([01][0-9]|2[0-3]):[0-5][0-9]$", title="To"),
    ]


class SlotRead(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    from_: Annotated[str, Field(alias="from", title="From")]
    to: Annotated[str, Field(title="To")]


class TestEvent(BaseModel):
    """
    The outcome of one POST of a test event to the callback URL.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    delivered: Annotated[
        bool,
        Field(
            description="Whether the receiver answered 200-499 in time",
            title="Delivered",
        ),
    ]
    error: Annotated[
        str | None,
        Field(
            description="Why no answer came (timeout, connect_error, refused: ...), or null",
            title="Error",
        ),
    ]
    event: Annotated[
        dict[str, Any],
        Field(description="The test event's body, as sent", title="Event"),
    ]
    status: Annotated[
        int | None,
        Field(description="The receiver's status, null without an answer", title="Status"),
    ]


class Timezone(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(description="IANA timezone name", title="Name")]
    offset: Annotated[
        int,
        Field(
            description="Deprecated: standard offset in seconds, ignoring daylight saving",
            title="Offset",
        ),
    ]


class TokenResponse(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    access_token: Annotated[str, Field(description="Send it in `X-Access-Token` (or as a Bearer token).")]
    account_id: Annotated[str | None, Field(description="The account the token is bound to.")] = None
    account_name: str | None = None
    catalog_id: Annotated[
        str | None,
        Field(description="The catalog the token is bound to, if its scope names one."),
    ] = None
    catalog_name: str | None = None
    customer_list_id: Annotated[
        str | None,
        Field(description="The customer list the token is bound to, if any."),
    ] = None
    customer_list_name: str | None = None
    location_id: Annotated[
        str | None,
        Field(description="The location the token is bound to (location level)."),
    ] = None
    location_name: str | None = None
    scope: Annotated[
        str | None,
        Field(description="The scope the user granted, e.g. `location[orders.read],profile`."),
    ] = None
    token_type: Literal["Bearer"]


class User(BaseModel):
    """
    The user who connected the application; `email` only with the profile_with_email scope.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    email: Annotated[
        str | None,
        Field(description="Present only with the profile_with_email scope", title="Email"),
    ] = None
    first_name: Annotated[str | None, Field(title="First Name")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    last_name: Annotated[str | None, Field(title="Last Name")]
    locales: Annotated[list[str], Field(title="Locales")]
    timezone: Timezone


class ValidationErrorBody(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    error_type: Annotated[str, Field(title="Error Type")]
    errors: Annotated[list[FieldErrorBody], Field(title="Errors")]
    message: Annotated[str, Field(title="Message")]


class Variant(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    ref: Annotated[str, Field(title="Ref")]


class Customer(BaseModel):
    """
    A customer (read shape). `private_ref` is the reading client's own.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    address_1: Annotated[str | None, Field(title="Address 1")]
    address_2: Annotated[str | None, Field(title="Address 2")]
    anonymised: Annotated[bool, Field(title="Anonymised")]
    birth_date: Annotated[date | None, Field(title="Birth Date")]
    city: Annotated[str | None, Field(title="City")]
    company_name: Annotated[str | None, Field(title="Company Name")]
    country: Annotated[str | None, Field(title="Country")]
    created_at: Annotated[AwareDatetime, Field(examples=["2026-06-24T17:07:53+02:00"], title="Created At")]
    custom_fields: Annotated[dict[str, Any], Field(title="Custom Fields")]
    customer_list_id: Annotated[
        str,
        Field(
            examples=["4k3jxr"],
            pattern="^[2-9a-km-np-z]{6,13}$",
            title="Customer List Id",
        ),
    ]
    delivery_notes: Annotated[str | None, Field(title="Delivery Notes")]
    email: Annotated[str | None, Field(title="Email")]
    email_marketing: Annotated[bool, Field(title="Email Marketing")]
    first_name: Annotated[str | None, Field(title="First Name")]
    first_order_date: Annotated[AwareDatetime | None, Field(title="First Order Date")]
    gender: Annotated[Literal["male", "female"] | None, Field(title="Gender")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    last_name: Annotated[str | None, Field(title="Last Name")]
    last_order_date: Annotated[AwareDatetime | None, Field(title="Last Order Date")]
    latitude: Annotated[str | None, Field(title="Latitude")]
    longitude: Annotated[str | None, Field(title="Longitude")]
    loyalty_cards: Annotated[list[LoyaltyCardSummary], Field(title="Loyalty Cards")]
    nb_orders: Annotated[int, Field(title="Nb Orders")]
    order_total: Annotated[str, Field(title="Order Total")]
    phone: Annotated[str | None, Field(title="Phone")]
    phone_access_code: Annotated[str | None, Field(title="Phone Access Code")]
    postal_code: Annotated[str | None, Field(title="Postal Code")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    sms_marketing: Annotated[bool, Field(title="Sms Marketing")]
    state: Annotated[str | None, Field(title="State")]


class Item(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    customer_notes: Annotated[CustomerNotes | None, Field(title="Customer Notes")] = None
    deal_line: DealLine | None = None
    options: Annotated[list[ItemOption] | None, Field(max_length=1000, title="Options")] = None
    points_earned: Annotated[PointsEarned | PointsEarned1 | None, Field(title="Points Earned")] = None
    points_used: Annotated[PointsUsed | PointsUsed1 | None, Field(title="Points Used")] = None
    price: Annotated[
        str,
        Field(
            description="Amount, a space and an ISO 4217 currency; read back with 2 decimals.",
            examples=["12.50 EUR"],
            pattern="^[0-9]{1,15}(\\.[0-9]{1,2})? [A-Z]{3}$",
            title="Price",
        ),
    ]
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    product_name: Annotated[str, Field(max_length=255, pattern="^[^\\u0000]*$", title="Product Name")]
    quantity: Annotated[Quantity | Quantity1, Field(examples=["2"], title="Quantity")]
    sku_name: Annotated[SkuName | None, Field(title="Sku Name")] = None
    sku_ref: Annotated[SkuRef | None, Field(title="Sku Ref")] = None
    tax_rate: Annotated[TaxRate | TaxRate1 | None, Field(title="Tax Rate")] = None


class ItemRead(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    customer_notes: Annotated[str | None, Field(title="Customer Notes")]
    deal_line: DealLineRead | None
    deleted: Annotated[bool, Field(title="Deleted")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    options: Annotated[list[ItemOptionRead], Field(title="Options")]
    points_earned: Annotated[str | None, Field(title="Points Earned")]
    points_used: Annotated[str | None, Field(title="Points Used")]
    price: Annotated[str, Field(title="Price")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    product_name: Annotated[str, Field(title="Product Name")]
    quantity: Annotated[str, Field(title="Quantity")]
    sku_name: Annotated[str | None, Field(title="Sku Name")]
    sku_ref: Annotated[str | None, Field(title="Sku Ref")]
    subset: Annotated[str | None, Field(title="Subset")]
    subtotal: Annotated[str, Field(title="Subtotal")]
    tax_rate: Annotated[str | None, Field(title="Tax Rate")]


class OpeningHours(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    friday: Annotated[list[SlotRead] | None, Field(title="Friday")] = None
    monday: Annotated[list[SlotRead] | None, Field(title="Monday")] = None
    saturday: Annotated[list[SlotRead] | None, Field(title="Saturday")] = None
    sunday: Annotated[list[SlotRead] | None, Field(title="Sunday")] = None
    thursday: Annotated[list[SlotRead] | None, Field(title="Thursday")] = None
    tuesday: Annotated[list[SlotRead] | None, Field(title="Tuesday")] = None
    wednesday: Annotated[list[SlotRead] | None, Field(title="Wednesday")] = None


class OpeningHoursUpdate(BaseModel):
    """
    Keys `monday` to `sunday`; a missing day or an empty array means closed, and the week
    has at least one slot. A time before the location's `cutoff_time` belongs to the next day:
    a slot's `to` follows its `from`, and the slots of a day do not overlap.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    friday: Annotated[list[Slot] | None, Field(title="Friday")] = None
    monday: Annotated[list[Slot] | None, Field(title="Monday")] = None
    saturday: Annotated[list[Slot] | None, Field(title="Saturday")] = None
    sunday: Annotated[list[Slot] | None, Field(title="Sunday")] = None
    thursday: Annotated[list[Slot] | None, Field(title="Thursday")] = None
    tuesday: Annotated[list[Slot] | None, Field(title="Tuesday")] = None
    wednesday: Annotated[list[Slot] | None, Field(title="Wednesday")] = None


class Order(BaseModel):
    """
    An order (read shape).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    asap: Annotated[bool, Field(title="Asap")]
    channel: Annotated[str | None, Field(title="Channel")]
    charges: Annotated[list[OrderChargeRead], Field(title="Charges")]
    collection_code: Annotated[str | None, Field(title="Collection Code")]
    confirmed_time: Annotated[AwareDatetime | None, Field(title="Confirmed Time")]
    connection_name: Annotated[str | None, Field(title="Connection Name")]
    coupon_codes: Annotated[list[str], Field(title="Coupon Codes")]
    created_at: Annotated[AwareDatetime, Field(examples=["2026-06-24T17:07:53+02:00"], title="Created At")]
    created_by: Annotated[str, Field(title="Created By")]
    custom_fields: Annotated[dict[str, Any], Field(title="Custom Fields")]
    customer: OrderCustomer | None
    customer_id: Annotated[CustomerId | None, Field(title="Customer Id")]
    customer_list_id: Annotated[CustomerListId | None, Field(title="Customer List Id")]
    customer_notes: Annotated[str | None, Field(title="Customer Notes")]
    deals: Annotated[dict[str, OrderDealRead], Field(title="Deals")]
    delivery: Annotated[dict[str, Any] | None, Field(title="Delivery")]
    discounts: Annotated[list[OrderDiscountRead], Field(title="Discounts")]
    driver_pickup_url: Annotated[str | None, Field(title="Driver Pickup Url")]
    expected_time: Annotated[AwareDatetime | None, Field(title="Expected Time")]
    expected_time_pickup: Annotated[bool, Field(title="Expected Time Pickup")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    items: Annotated[list[ItemRead], Field(title="Items")]
    location_id: Annotated[
        str,
        Field(
            examples=["4k3jxr-1"],
            pattern="^[2-9a-km-np-z]{6,13}-[1-9][0-9]{0,8}$",
            title="Location Id",
        ),
    ]
    loyalty_operations: Annotated[list[OrderLoyaltyOperationRead], Field(title="Loyalty Operations")]
    payment_discrepancy: Annotated[str, Field(description="Deprecated: do not use", title="Payment Discrepancy")]
    payments: Annotated[list[PaymentRead], Field(title="Payments")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    ref: Annotated[str | None, Field(title="Ref")]
    seller_notes: Annotated[str | None, Field(title="Seller Notes")]
    service_type: Annotated[str | None, Field(title="Service Type")]
    service_type_ref: Annotated[str | None, Field(title="Service Type Ref")]
    status: Annotated[
        Literal[
            "new",
            "received",
            "accepted",
            "in_preparation",
            "awaiting_shipment",
            "awaiting_collection",
            "in_delivery",
            "completed",
            "rejected",
            "cancelled",
            "delivery_failed",
        ],
        Field(title="Status"),
    ]
    total: Annotated[str, Field(title="Total")]
    total_discrepancy: Annotated[str, Field(description="Deprecated: do not use", title="Total Discrepancy")]


class OrderCreate(BaseModel):
    """
    POST /locations/:id/orders: only `status` is required.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    asap: Annotated[bool | None, Field(title="Asap")] = None
    channel: Annotated[Channel | None, Field(title="Channel")] = None
    charges: Annotated[list[OrderCharge] | None, Field(max_length=1000, title="Charges")] = None
    collection_code: Annotated[CollectionCode | None, Field(title="Collection Code")] = None
    confirmed_time: Annotated[ConfirmedTime | None, Field(title="Confirmed Time")] = None
    coupon_codes: Annotated[list[CouponCode] | None, Field(max_length=100, title="Coupon Codes")] = None
    custom_fields: Annotated[
        dict[Annotated[str, StringConstraints(pattern=r"^[^\u0000]*$")], Any] | None,
        Field(
            description="At most 8 KB as JSON. On update a null value removes the key, other keys are added or replaced, absent keys are kept.",
            title="Custom Fields",
        ),
    ] = None
    customer: GuestCustomer | None = None
    customer_id: Annotated[CustomerId | None, Field(title="Customer Id")] = None
    customer_list_id: Annotated[CustomerListId | None, Field(title="Customer List Id")] = None
    customer_notes: Annotated[CustomerNotes | None, Field(title="Customer Notes")] = None
    customer_private_ref: Annotated[
        CustomerPrivateRef | None,
        Field(
            description="Given with `customer_list_id`, and only then",
            title="Customer Private Ref",
        ),
    ] = None
    deals: Annotated[
        dict[Annotated[str, StringConstraints(pattern=r"^[^\u0000]*$")], OrderDeal] | None,
        Field(title="Deals"),
    ] = None
    discounts: Annotated[list[OrderDiscount] | None, Field(max_length=1000, title="Discounts")] = None
    driver_pickup_url: Annotated[DriverPickupUrl | None, Field(title="Driver Pickup Url")] = None
    expected_time: Annotated[ExpectedTime | None, Field(title="Expected Time")] = None
    expected_time_pickup: Annotated[bool | None, Field(title="Expected Time Pickup")] = False
    items: Annotated[list[Item] | None, Field(max_length=1000, title="Items")] = None
    loyalty_operations: Annotated[
        list[OrderLoyaltyOperation] | None,
        Field(max_length=100, title="Loyalty Operations"),
    ] = None
    payments: Annotated[list[Payment] | None, Field(max_length=1000, title="Payments")] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    seller_notes: Annotated[SellerNotes | None, Field(title="Seller Notes")] = None
    service_type: ServiceType | None = None
    service_type_ref: Annotated[ServiceTypeRef | None, Field(title="Service Type Ref")] = None
    status: Annotated[
        Literal[
            "new",
            "received",
            "accepted",
            "in_preparation",
            "awaiting_shipment",
            "awaiting_collection",
            "in_delivery",
            "completed",
            "rejected",
            "cancelled",
            "delivery_failed",
        ],
        Field(title="Status"),
    ]


class OrderUpdate(BaseModel):
    """
    PATCH/PUT: these fields only; each element collection takes three forms (add, delete,
    set private ref; docs/api/orders.md), told apart by the service.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    charges: Annotated[
        list[OrderCharge | ElementDelete | ElementRef] | None,
        Field(max_length=1000, title="Charges"),
    ] = None
    collection_code: Annotated[CollectionCode | None, Field(title="Collection Code")] = None
    confirmed_time: Annotated[ConfirmedTime | None, Field(title="Confirmed Time")] = None
    custom_fields: Annotated[
        dict[Annotated[str, StringConstraints(pattern=r"^[^\u0000]*$")], Any] | None,
        Field(
            description="At most 8 KB as JSON. On update a null value removes the key, other keys are added or replaced, absent keys are kept.",
            title="Custom Fields",
        ),
    ] = None
    discounts: Annotated[
        list[OrderDiscount | ElementDelete | ElementRef] | None,
        Field(max_length=1000, title="Discounts"),
    ] = None
    driver_pickup_url: Annotated[DriverPickupUrl | None, Field(title="Driver Pickup Url")] = None
    items: Annotated[
        list[Item | ElementDelete | ElementRef] | None,
        Field(max_length=1000, title="Items"),
    ] = None
    payments: Annotated[
        list[Payment | ElementDelete | ElementRef] | None,
        Field(max_length=1000, title="Payments"),
    ] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    seller_notes: Annotated[SellerNotes | None, Field(title="Seller Notes")] = None
    status: Annotated[
        Literal[
            "new",
            "received",
            "accepted",
            "in_preparation",
            "awaiting_shipment",
            "awaiting_collection",
            "in_delivery",
            "completed",
            "rejected",
            "cancelled",
            "delivery_failed",
        ]
        | None,
        Field(title="Status"),
    ] = None


class Product(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    category_id: Annotated[
        str,
        Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Category Id"),
    ]
    category_ref: Annotated[str, Field(title="Category Ref")]
    description: Annotated[str | None, Field(title="Description")]
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    image_ids: Annotated[list[ImageId], Field(title="Image Ids")]
    name: Annotated[str, Field(title="Name")]
    nutrition: Annotated[dict[str, Any] | None, Field(title="Nutrition")]
    ref: Annotated[str | None, Field(title="Ref")]
    skus: Annotated[list[Sku], Field(title="Skus")]
    tags: Annotated[list[str], Field(title="Tags")]
    tax_rate: Annotated[dict[str, str] | None, Field(title="Tax Rate")]


class CatalogData(BaseModel):
    """
    A catalog's whole content, each section in its read order (docs/api/catalogs.md).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    categories: Annotated[list[Category], Field(title="Categories")]
    charges: Annotated[list[Charge], Field(title="Charges")]
    deals: Annotated[list[Deal], Field(title="Deals")]
    discounts: Annotated[list[Discount], Field(title="Discounts")]
    option_lists: Annotated[list[OptionList], Field(title="Option Lists")]
    products: Annotated[list[Product], Field(title="Products")]
    variants: Annotated[list[Variant], Field(title="Variants")]


class Location(BaseModel):
    """
    A location (read shape).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    account: Account
    address: Annotated[str | None, Field(title="Address")]
    city: Annotated[str | None, Field(title="City")]
    country: Annotated[str, Field(title="Country")]
    custom_fields: Annotated[dict[str, Any], Field(title="Custom Fields")]
    cutoff_time: Annotated[str, Field(title="Cutoff Time")]
    id: Annotated[
        str,
        Field(
            examples=["4k3jxr-1"],
            pattern="^[2-9a-km-np-z]{6,13}-[1-9][0-9]{0,8}$",
            title="Id",
        ),
    ]
    name: Annotated[str, Field(title="Name")]
    opening_hours: OpeningHours | None
    order_acceptance: OrderAcceptance
    postal_code: Annotated[str | None, Field(title="Postal Code")]
    preparation_time: Annotated[int, Field(title="Preparation Time")]
    timezone: Timezone


class LocationUpdate(BaseModel):
    """
    PATCH/PUT /locations/:id: only these fields; others are ignored. An absent field,
    or one sent as null, is unchanged; but `opening_hours: null` unsets the opening hours
    (docs/api/conventions.md "Null fields").
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    custom_fields: Annotated[
        dict[Annotated[str, StringConstraints(pattern=r"^[^\u0000]*$")], Any] | None,
        Field(
            description="At most 8 KB as JSON. On update a null value removes the key, other keys are added or replaced, absent keys are kept.",
            title="Custom Fields",
        ),
    ] = None
    cutoff_time: Annotated[
        str | None,
        Field(
            examples=["06:00"],
            pattern="^([01][0-9]|2[0-3]):[0-5][0-9]$",
            title="Cutoff Time",
        ),
    ] = None
    opening_hours: OpeningHoursUpdate | None = None
    order_acceptance: OrderAcceptanceUpdate | None = None
    preparation_time: Annotated[int | None, Field(ge=0, le=10080, title="Preparation Time")] = None


class Catalog(BaseModel):
    """
    A catalog; `data` is omitted by lists and by `hide_data=true`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    account_id: Annotated[AccountId | None, Field(title="Account Id")]
    created_at: Annotated[AwareDatetime, Field(examples=["2026-06-24T17:07:53+02:00"], title="Created At")]
    data: CatalogData | None = None
    id: Annotated[str, Field(examples=["4k3jxr"], pattern="^[2-9a-km-np-z]{6,13}$", title="Id")]
    location_id: Annotated[LocationId | None, Field(title="Location Id")]
    name: Annotated[str, Field(title="Name")]


# The names of comptoir-client 0.1, kept for 0.2 only (CHANGELOG.md): each still works, with a
# DeprecationWarning; type checkers see the new names only.
_RENAMED = {
    "ItemIn": "Item",
    "ItemOut": "ItemRead",
    "OptionIn": "ItemOption",
    "OptionOut": "ItemOptionRead",
    "DealLineIn": "DealLine",
    "DealLineOut": "DealLineRead",
    "PaymentIn": "Payment",
    "PaymentOut": "PaymentRead",
    "ChargeIn": "OrderCharge",
    "ChargeOut": "OrderChargeRead",
    "DiscountIn": "OrderDiscount",
    "DiscountOut": "OrderDiscountRead",
    "DealIn": "OrderDeal",
    "DealOut": "OrderDealRead",
    "LoyaltyOperationIn": "OrderLoyaltyOperation",
    "LoyaltyOperationOut": "OrderLoyaltyOperationRead",
    "SlotOut": "SlotRead",
    "OrderAcceptanceUpdate1": "OrderAcceptanceUpdate",
    "OrderAcceptanceUpdate2": "OrderAcceptanceUpdate",
    "OrderAcceptanceUpdate3": "OrderAcceptanceUpdate",
    "OpeningHoursUpdate1": "OpeningHoursUpdate",
    "OpeningHoursUpdate2": "OpeningHoursUpdate",
    "OpeningHoursUpdate3": "OpeningHoursUpdate",
    "OpeningHoursUpdate4": "OpeningHoursUpdate",
    "OpeningHoursUpdate5": "OpeningHoursUpdate",
    "OpeningHoursUpdate6": "OpeningHoursUpdate",
    "OpeningHoursUpdate7": "OpeningHoursUpdate",
}

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        new = _RENAMED.get(name)
        if new is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        message = f"comptoir_client.models.{name} is {new} since 0.2; {name} goes in 0.3"
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return globals()[new]
