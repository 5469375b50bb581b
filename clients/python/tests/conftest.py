from client_live_server import live

__all__ = ["live"]
