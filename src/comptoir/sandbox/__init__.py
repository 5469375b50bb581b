"""The sandbox for integrators' tests (docs/sandbox.md): a server on a database of its own,
loaded from a seed file through the services the API uses, reset to that seeded state on
request. Nothing here runs in a normal `serve`."""
