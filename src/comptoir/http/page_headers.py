"""The security headers of every HTML page Comptoir serves (the back office and the OAuth
pages alike; docs/back-office.md "Layout, navigation and words"): no framing, no script but
the page's own inline ones named by hash, nothing cached, no referrer."""

from __future__ import annotations

import base64
import hashlib

from starlette.responses import Response

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'"
SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    # No script but the page's own inline ones, named by hash (`protect`); inline styles of
    # our own pages; forms may post here only.
    "Content-Security-Policy": _CSP,
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


def script_hash(source: str) -> str:
    """The CSP source allowing exactly the inline script `source` (its SHA-256)."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"


def protect(response: Response, scripts: tuple[str, ...] = ()) -> Response:
    """The security headers of every page, those it has not set already (a page protected
    twice keeps the first); `scripts`: the page's inline scripts, the only ones its CSP
    lets run (a page works without them: progressive enhancement); they may fetch from this
    origin only (the live board's updates)."""
    if scripts:
        allowed = " ".join(script_hash(source) for source in scripts)
        response.headers.setdefault("Content-Security-Policy", f"{_CSP}; connect-src 'self'; script-src {allowed}")
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response
