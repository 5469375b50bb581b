"""Timed maintenance jobs run inside `serve` and `comptoir worker`."""
