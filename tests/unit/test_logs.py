"""The log lines' renderer (observe/logs.py): Comptoir's logfmt writes exactly what structlog's
`LogfmtRenderer` writes, faster."""

from __future__ import annotations

from typing import Any

import pytest
import structlog
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from comptoir.observe.logs import Logfmt

REFERENCE = structlog.processors.LogfmtRenderer(key_order=["timestamp", "level", "event"], bool_as_flag=False)

keys = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x2FF), min_size=1, max_size=12)
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(),
    st.text(alphabet=' ="\\\n\tab=', max_size=20),
    st.lists(st.integers(), max_size=3),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(keys, values, max_size=8))
def test_a_line_is_what_structlogs_logfmt_writes(event: dict[str, Any]) -> None:
    assert Logfmt()(None, "info", dict(event)) == REFERENCE(None, "info", dict(event))


def test_the_access_line_is_written_in_key_order_then_as_given() -> None:
    event = {"method": "GET", "path": "/v1/a b", "status": 200, "event": "request", "level": "info", "ok": True}
    assert (
        Logfmt()(None, "info", event)
        == 'timestamp= level=info event=request method=GET path="/v1/a b" status=200 ok=true'
    )


@pytest.mark.parametrize("key", ["a b", "a\nb", ""])
def test_a_key_with_a_space_or_control_is_refused_as_structlog_does(key: str) -> None:
    for renderer in (Logfmt(), REFERENCE):
        if key == "":
            assert renderer(None, "info", {key: 1}) == "timestamp= level= event= =1"
            continue
        with pytest.raises(ValueError, match="Invalid key"):
            renderer(None, "info", {key: 1})
