"""Storage: the engine and sessions (`engine`), the direct driver for hot statements
(`direct`), the one id allocator (`ids`) and the migrations (docs/architecture.md)."""
