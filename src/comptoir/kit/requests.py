"""The base of every request body's model: a field sent as JSON null is taken as not sent,
unless null is one of its values (docs/api/conventions.md "Null fields").

A field takes null when its type says so (`X | None`, `Any`): a text, a time, a ref or an
object that reads null and that null clears on an update, or a value whose null its service
reads itself (a callback's `url`, a catalog's `name` and `data`). Any other field sent as null
(an array, an object, a boolean, an enumeration, a number with a default, a required field)
is dropped before validation: a create gives it its default, and an update does not see it in
`model_fields_set`, so the stored value stays; a required field is then missing, a 422
"is required" naming it. The keys in a `custom_fields` object are values, not fields: their
null removes them (kit.custom_fields).

The set of such fields is worked out once per model class, from its annotations. The check of
an object costs one `None in values()` in C, so a body without null pays nothing more; the
document (`/v1/openapi.json`) says `null` for those of them that are optional.
"""

from __future__ import annotations

import types
from typing import Annotated, Any, ClassVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, GetJsonSchemaHandler, model_validator
from pydantic.fields import FieldInfo
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

# what stays beside `anyOf` when a property's schema is made to allow null
_ABOUT = ("title", "description", "default", "examples", "deprecated")
_NULL = {"type": "null"}


def takes_null(annotation: Any) -> bool:
    """Whether a field of this type has null among its values."""
    if annotation is Any or annotation is None or annotation is type(None):
        return True
    origin = get_origin(annotation)
    if origin is Annotated:
        return takes_null(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return any(takes_null(arg) for arg in get_args(annotation))
    return False


def _keys(name: str, info: FieldInfo) -> set[str]:
    """The keys a body may send the field under."""
    keys = {name}
    for alias in (info.alias, info.validation_alias):
        if isinstance(alias, str):
            keys.add(alias)
    return keys


def or_null(schema: dict[str, Any]) -> dict[str, Any]:
    """A property's JSON schema that also allows null: `"type": [..., "null"]` where it has
    one type (its constraints stay beside it, as a client generator reads them best), else
    `anyOf` with null."""
    if schema.get("type") == "null" or _NULL in schema.get("anyOf", ()):
        return schema
    if isinstance(schema.get("type"), str):
        nullable = {**schema, "type": [schema["type"], "null"]}
        if "enum" in schema:
            nullable["enum"] = [*schema["enum"], None]
        return nullable
    about = {key: value for key, value in schema.items() if key in _ABOUT}
    rest = {key: value for key, value in schema.items() if key not in _ABOUT}
    if list(rest) == ["anyOf"]:
        return {**about, "anyOf": [*rest["anyOf"], _NULL]}
    return {**about, "anyOf": [rest, _NULL]}


class RequestModel(BaseModel):
    """A request body, or an object within one. Keys the model does not define are ignored
    (docs/api/conventions.md "Requests")."""

    model_config = ConfigDict(extra="ignore")

    # the keys whose null means "not sent", of this class
    null_is_absent: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if not cls.__pydantic_complete__:  # its annotations would not be types yet
            raise TypeError(f"{cls.__name__}: a request model must name only types defined before it")
        absent = (_keys(name, info) for name, info in cls.model_fields.items() if not takes_null(info.annotation))
        cls.null_is_absent = frozenset().union(*absent)

    @model_validator(mode="before")
    @classmethod
    def _null_is_not_sent(cls, data: Any) -> Any:
        if type(data) is dict and None in data.values():
            absent = cls.null_is_absent
            return {key: value for key, value in data.items() if value is not None or key not in absent}
        return data

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core_schema)
        shape = handler.resolve_ref_schema(schema)
        required = set(shape.get("required", ()))
        properties = shape.get("properties", {})
        for key, value in properties.items():
            if key in cls.null_is_absent and key not in required:
                properties[key] = or_null(value)
        return schema
