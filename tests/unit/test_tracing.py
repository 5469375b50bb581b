"""docs/operations.md "Traces": which `OTEL_*` values turn tracing on, and that a process
with tracing off imports nothing of OpenTelemetry's SDK or instrumentations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from comptoir.kit.tracing import TracingConfigError, exporter_names


@pytest.mark.parametrize(
    ("environ", "names"),
    [
        ({}, []),
        ({"OTEL_TRACES_EXPORTER": ""}, []),
        ({"OTEL_TRACES_EXPORTER": "none"}, []),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, ["otlp"]),
        ({"OTEL_TRACES_EXPORTER": " Console "}, ["console"]),
        ({"OTEL_TRACES_EXPORTER": "otlp,console"}, ["otlp", "console"]),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"}, []),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "TRUE"}, []),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "false"}, ["otlp"]),
        ({"OTEL_SERVICE_NAME": "comptoir", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, []),
    ],
)
def test_tracing_is_on_when_an_exporter_is_named_and_the_sdk_not_disabled(
    environ: dict[str, str], names: list[str]
) -> None:
    assert exporter_names(environ) == names


def test_an_unknown_exporter_is_refused_at_start() -> None:
    with pytest.raises(TracingConfigError, match="unknown exporter 'jaeger'"):
        exporter_names({"OTEL_TRACES_EXPORTER": "otlp,jaeger"})


def test_with_tracing_off_no_sdk_or_instrumentation_is_imported(tmp_path: Path) -> None:
    # FastAPI itself imports the OpenTelemetry API (its own telemetry, idle without a provider)
    code = (
        "import sys\n"
        "from comptoir.app import create_app\n"
        "from comptoir.config import Settings\n"
        "import comptoir.cli\n"
        "from comptoir.kit import tracing\n"
        "assert not tracing.configure_from_environment()\n"
        f"create_app(Settings(database_url='sqlite:///{tmp_path}/c.db', secret_key='x' * 32))\n"
        "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry.sdk', 'opentelemetry.instrumentation',"
        " 'opentelemetry.exporter'))))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "OTEL_TRACES_EXPORTER": "none"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert result.stdout.strip() == "[]"
