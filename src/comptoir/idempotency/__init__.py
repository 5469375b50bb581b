"""`Idempotency-Key` on creations (docs/api/conventions.md "Idempotency"): the stored answer
of each key, replayed to a retry of the same request."""
