"""Storage of short links: SQLAlchemy 2 Core over SQLite (default) or PostgreSQL."""
from server.storage.canonical import canonical_json, link_id
from server.storage.links import LinkStore, StorageUnavailable

__all__ = ["LinkStore", "StorageUnavailable", "canonical_json", "link_id"]
