"""kit.requests (docs/api/conventions.md "Null fields"): which fields take null, what a null
becomes, what the document says of it, and that every request body of the API, nested
objects included, follows the rule."""

from __future__ import annotations

import tempfile
from typing import Annotated, Any, Literal, get_args

import pytest
from fastapi.routing import APIRoute, iter_route_contexts
from pydantic import BaseModel, Field, ValidationError

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.kit.requests import RequestModel, or_null, takes_null


class Line(RequestModel):
    name: str
    tags: list[str] = Field(default_factory=list)
    note: str | None = None
    kind: Literal["a", "b"] = "a"
    anything: Any = None


class Body(RequestModel):
    lines: list[Line] = Field(default_factory=list)
    first: Line | None = None
    count: Annotated[int, Field(ge=0)] = 0


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str | None, True),
        (Any, True),
        (Annotated[int | None, Field(ge=0)], True),
        (list[str], False),
        (dict[str, Any], False),
        (Literal["a", "b"], False),
        (Annotated[int, Field(ge=0)], False),
    ],
)
def test_a_field_takes_null_when_its_type_says_so(annotation: Any, expected: bool) -> None:
    assert takes_null(annotation) is expected


def test_the_nulls_of_fields_that_do_not_take_null_are_not_sent() -> None:
    assert Line.null_is_absent == {"name", "tags", "kind"}
    line = Line.model_validate({"name": "x", "tags": None, "note": None, "kind": None, "anything": None})
    assert (line.tags, line.note, line.kind, line.anything) == ([], None, "a", None)
    assert line.model_fields_set == {"name", "note", "anything"}


def test_nested_objects_in_arrays_follow_the_rule_too() -> None:
    body = Body.model_validate({"lines": [{"name": "x", "tags": None}], "count": None, "first": None})
    assert body.lines[0].tags == []
    assert body.model_fields_set == {"lines", "first"}


def test_a_required_field_sent_as_null_is_missing() -> None:
    with pytest.raises(ValidationError) as refused:
        Line.model_validate({"name": None})
    assert [(error["loc"], error["type"]) for error in refused.value.errors()] == [(("name",), "missing")]


def test_a_body_without_null_is_validated_as_given() -> None:
    given = {"name": "x", "tags": ["t"]}
    assert Line.model_validate(given).model_dump() == {
        "name": "x",
        "tags": ["t"],
        "note": None,
        "kind": "a",
        "anything": None,
    }
    assert given == {"name": "x", "tags": ["t"]}  # and a body with null is not changed in place
    with_null = {"name": "x", "tags": None}
    Line.model_validate(with_null)
    assert with_null == {"name": "x", "tags": None}


def test_the_document_says_null_is_accepted_for_optional_fields_only() -> None:
    schema = Body.model_json_schema()
    line = schema["$defs"]["Line"]["properties"]
    assert line["name"] == {"title": "Name", "type": "string"}
    assert line["tags"] == {"items": {"type": "string"}, "title": "Tags", "type": ["array", "null"]}
    assert line["kind"] == {"default": "a", "enum": ["a", "b", None], "title": "Kind", "type": ["string", "null"]}
    assert line["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Note"}
    assert schema["properties"]["count"] == {"default": 0, "minimum": 0, "title": "Count", "type": ["integer", "null"]}


def test_a_schema_without_one_type_gets_null_in_any_of() -> None:
    assert or_null({"$ref": "#/x", "title": "X"}) == {"title": "X", "anyOf": [{"$ref": "#/x"}, {"type": "null"}]}
    assert or_null({"anyOf": [{"type": "string"}, {"type": "number"}], "description": "d"}) == {
        "description": "d",
        "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}],
    }
    assert or_null({"anyOf": [{"type": "string"}, {"type": "null"}]}) == {
        "anyOf": [{"type": "string"}, {"type": "null"}]
    }


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation holds, at any depth of its arguments and fields."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        found = [annotation]
        for info in annotation.model_fields.values():
            found += [model for model in _models(info.annotation) if model not in found]
        return found
    return [model for arg in get_args(annotation) for model in _models(arg)]


def test_every_request_body_model_of_the_api_is_a_request_model() -> None:
    with tempfile.TemporaryDirectory() as directory:
        app = create_app(
            Settings(database_url=f"sqlite:///{directory}/unused.db", secret_key="unused"), background=False
        )
    bodies = {
        model
        for context in iter_route_contexts(app.routes)
        if isinstance(context.original_route, APIRoute)
        for param in context.original_route.dependant.body_params
        for model in _models(param.field_info.annotation)
    }
    assert {model.__name__ for model in bodies} >= {"OrderCreate", "ItemIn", "OptionIn", "CustomerWrite", "Slot"}
    assert [model.__name__ for model in bodies if not issubclass(model, RequestModel)] == []
