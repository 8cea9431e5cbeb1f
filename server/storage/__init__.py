"""Storage of short links: SQLAlchemy 2 Core over SQLite (default) or PostgreSQL."""
from gradwalk.server.storage.canonical import canonical_json, link_id
from gradwalk.server.storage.links import LinkStore, StorageUnavailable

__all__ = ["LinkStore", "StorageUnavailable", "canonical_json", "link_id"]
