"""What is checked of a JSON body while it streams in (docs/architecture.md "Request bodies").

`routing.read_json_body` feeds the body to a `kit.jsonstream.Stream` whose Shape comes from
here. By default it is the route's body model's: every array field (`list[Item]`, in the
model or in the models of its fields) has each element validated as it completes by
pydantic's adapter of `Item`, the model's own rule for that element; the keys a model
ignores are skipped unbuilt. A route whose body is checked by its service instead declares
its own Shape with `BodyShape` in the body's annotation (catalogs, inventory).

An element's errors are collected in a FieldErrors. Until MAX_ERRORS are named, every
element is kept as it came and the model validates the whole body afterwards, exactly as for
a body read at once (the errors in the model's order); once MAX_ERRORS are named, the body
is refused: further elements are only validated to count their errors, and dropped.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from functools import lru_cache
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.requests import Request

from comptoir.auth.context import Ctx
from comptoir.errors import FieldErrors, field_path, validation_message
from comptoir.kit.jsonstream import REFUSED, Path, Shape, Tally

# (request, ctx) -> the body's Shape and where its checks count their errors
ShapeOf = Callable[[Request, Ctx | None], tuple[Shape, Tally]]
_NESTING = 6  # model fields followed this deep for their arrays


class BodyShape:
    """`Annotated[..., BodyShape(shape_of)]` on an endpoint's body: streamed with that Shape."""

    def __init__(self, shape_of: ShapeOf) -> None:
        self.shape_of = shape_of


def shape_of(annotation: Any, metadata: list[Any]) -> ShapeOf | None:
    """How the body of a route with this annotation (and FieldInfo metadata) is streamed."""
    for item in metadata:
        if isinstance(item, BodyShape):
            return item.shape_of
    plan = _plan(annotation, _NESTING)
    if plan is None:
        return None

    def model_shape(_request: Request, _ctx: Ctx | None) -> tuple[Shape, Tally]:
        found = FieldErrors()
        return _build(plan, found), found

    return model_shape


# A plan: ("items", adapter, keep_validated) for an array, ("object", {key: plan | None},
# ignored) for a model; None where nothing is checked while streaming.
Plan = tuple[Any, ...]


def _plan(annotation: Any, depth: int) -> Plan | None:
    annotation = _bare(annotation)
    if depth <= 0 or annotation is None:
        return None
    if get_origin(annotation) is list:
        (item,) = get_args(annotation) or (Any,)
        item = _bare(item)
        if item is Any or item is None:
            return None
        return ("items", _adapter(item), isinstance(item, type) and issubclass(item, BaseModel))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        fields: dict[str, Plan | None] = {}
        for name, info in annotation.model_fields.items():
            child = _plan(info.annotation, depth - 1)
            for key in {name, info.alias or name, info.validation_alias or name}:
                if isinstance(key, str):
                    fields[key] = child
        # keys are skipped only when every name a field is read by is known here
        plain = all(
            info.validation_alias is None or isinstance(info.validation_alias, str)
            for info in annotation.model_fields.values()
        )
        ignored = plain and annotation.model_config.get("extra") in (None, "ignore")
        if not ignored and not any(fields.values()):
            return None
        return ("object", fields, ignored)
    return None


def _bare(annotation: Any) -> Any:
    """`X` of `Annotated[X, ...]`, `X | None` and `Optional[X]`; None for other unions."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (Union, types.UnionType):
        choices = [arg for arg in get_args(annotation) if arg is not type(None)]
        return _bare(choices[0]) if len(choices) == 1 else None
    return annotation


@lru_cache(maxsize=256)
def _adapter(item: Any) -> TypeAdapter[Any]:
    return TypeAdapter(item)


def _build(plan: Plan, found: FieldErrors) -> Shape:
    if plan[0] == "items":
        return Shape(items=_check(plan[1], plan[2], found))
    fields = {key: None if child is None else _build(child, found) for key, child in plan[1].items()}
    return Shape(fields=fields, ignored=plan[2])


def _check(adapter: TypeAdapter[Any], keep_validated: bool, found: FieldErrors) -> Callable[[Any, Path], Any]:
    def check(raw: Any, path: Path) -> Any:
        try:
            value = adapter.validate_python(raw)
        except ValidationError as exc:
            for error in exc.errors():
                found.add(field_path((*path, *error["loc"])), validation_message(error))
            return REFUSED if found.full else raw
        # A model instance is not validated again by the model holding it; other values are.
        return value if keep_validated else raw

    return check
