"""STAND-IN for the back office's shared frame (`render.Problem`, `render.problems`, the
`quantity` filter and the `field_error`/`invalid` macros of `bo_macros.html`), so that the
stock, catalog and customer pages run before the frame is merged. Each piece steps aside
when the frame provides it; once it is merged, import `Problem` and `problems` from
`comptoir.web.render` and delete this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from jinja2 import ChoiceLoader, Environment, FunctionLoader
from pydantic import ValidationError

from comptoir.errors import Unprocessable, field_path, validation_message
from comptoir.web import render


@dataclass(frozen=True, slots=True)
class Problem:
    """An error of a form: beside `field` (None: the form as a whole)."""

    field: str | None
    message: str

    def __str__(self) -> str:
        return self.message


def problems(exc: Unprocessable | ValidationError, fields: Mapping[str, str]) -> list[Problem]:
    """The errors of `exc` as Problems in the form's field order: `fields` maps an API path
    prefix to a form field; a message reads "<Label>: <message>"."""
    if isinstance(exc, Unprocessable):
        found = [(e.field, e.message) for e in exc.errors]
    else:
        found = [(field_path(e["loc"]), validation_message(dict(e))) for e in exc.errors()]
    order = list(fields)
    shown = []
    for path, message in found:
        prefix = next((p for p in order if path == p or path.startswith(p + ".") or path.startswith(p + "[")), None)
        name = fields[prefix] if prefix is not None else None
        label = (name or path or "").replace("_", " ").capitalize()
        rank = order.index(prefix) if prefix is not None else len(order)
        shown.append((rank, Problem(name, f"{label}: {message}" if label else message)))
    return [problem for _, problem in sorted(shown, key=lambda pair: pair[0])]


def quantity(value: object) -> str:
    """ "2.0" -> "2", "0.500" -> "0.5"."""
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    text = format(number.normalize(), "f")
    return text if text != "-0" else "0"


_MACROS = """
{% macro field_error(errors, name) %}
{% set mine = errors | selectattr("field", "equalto", name) | map(attribute="message") | list %}
{% if mine %}<p class="field-error" id="{{ name }}-error">{{ mine | join(" ") }}</p>{% endif %}
{% endmacro %}
{% macro invalid(errors, name) %}
{% if errors | selectattr("field", "equalto", name) | list %}
 aria-describedby="{{ name }}-error" aria-invalid="true"{% endif %}
{% endmacro %}
"""


def _install(env: Environment) -> None:
    env.filters.setdefault("quantity", quantity)
    original = env.loader
    assert original is not None
    source, _, _ = original.get_source(env, "bo_macros.html")
    if "macro field_error" in source:
        return

    def macros(name: str) -> str | None:
        return source + _MACROS if name == "bo_macros.html" else None

    env.loader = ChoiceLoader([FunctionLoader(macros), original])


_install(render.templates)
