"""The HTTP layer: routing (long and short forms of every route), middleware, request
dependencies, the application state, OpenAPI, idempotency and the request log. No business
rules live here (docs/architecture.md)."""
