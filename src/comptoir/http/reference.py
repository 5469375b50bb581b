"""The interactive API reference at /docs: Swagger UI reading /v1/openapi.json.

Swagger UI's files come from the `fastapi-offline` package and are served from here
(/docs/assets/...): the page loads nothing from another host, and its Content-Security-Policy
says so (scripts, styles, images and requests from this origin only; no inline script or style: the
page's own start-up script is /docs/assets/start.js). `/redoc` and `/v1/docs` lead to
/docs, and `GET /v1` (the API's root) names it."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import APIRouter
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from comptoir.errors import RoutingError
from comptoir.http.routing import JSON

DOCS = "/docs"
OPENAPI = "/v1/openapi.json"
_PACKAGE_FILES = Path(fastapi_offline.__file__).parent / "static"
_ASSETS = {  # name -> media type: these files of the package, no other
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon.png": "image/png",
}
# validatorUrl null: Swagger UI would otherwise fetch a badge from its public validator.
START = f"""window.addEventListener("load", function () {{
  window.ui = SwaggerUIBundle({{
    url: "{OPENAPI}",
    dom_id: "#swagger-ui",
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  }});
}});
"""
PAGE = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Comptoir API reference</title>
<link rel="icon" href="{DOCS}/assets/favicon.png">
<link rel="stylesheet" href="{DOCS}/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"><p>The API reference needs JavaScript; the document itself is
<a href="{OPENAPI}">{OPENAPI}</a>.</p></div>
<script src="{DOCS}/assets/swagger-ui-bundle.js"></script>
<script src="{DOCS}/assets/start.js"></script>
</body>
</html>
"""
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}
_CACHED = {"Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff"}

router = APIRouter(include_in_schema=False)


@router.get(DOCS)
async def reference() -> Response:
    return HTMLResponse(PAGE, headers={**HEADERS, "Cache-Control": "no-cache"})


@router.get(DOCS + "/assets/{name}")
async def asset(name: str) -> Response:
    if name == "start.js":
        return Response(START, media_type="text/javascript; charset=utf-8", headers=_CACHED)
    if name not in _ASSETS:
        raise RoutingError("GET", f"{DOCS}/assets/{name}")
    return FileResponse(_PACKAGE_FILES / name, media_type=_ASSETS[name], headers=_CACHED)


@router.get("/redoc")
@router.get("/v1/docs")
async def to_reference() -> Response:
    return RedirectResponse(DOCS, status_code=308)


@router.get("/v1")
async def api_root() -> Response:
    """The API's root: where its reference and document are."""
    return JSON({"name": "Comptoir integration API", "version": "1", "docs": DOCS, "openapi": OPENAPI})
