"""What operators watch: Prometheus metrics and readiness (docs/operations.md "Metrics",
"Health and readiness")."""
