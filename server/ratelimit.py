"""The per-client rate limit of new short links, with the `limits` library.

The counts live in this process's memory (limits' MemoryStorage; they expire with their
window), so `gradwalk serve --workers N` lets a client make up to N times the limit: the
storage cap (GRADWALK_MAX_LINK_STORAGE_BYTES) is what holds across processes. A client is its
address as the server sees it: an IPv4 address, or an IPv6 address's /64 network (one host
usually holds a whole /64, and could otherwise rotate through it). Behind a reverse proxy every
client has the proxy's address unless uvicorn is told to trust its X-Forwarded-For
(`--forwarded-allow-ips`); uvicorn already trusts it from 127.0.0.1.
"""
from __future__ import annotations

import ipaddress
import math
import threading
import time

from limits import parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter


class RateLimit:
    """spec: limits' notation, one or more "N/second|minute|hour|day" separated by ";"
    (e.g. "30/minute;600/hour"); empty means no limit. Raises ValueError for a bad spec."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.items = parse_many(spec) if spec.strip() else []
        # Moving window: no burst of twice the limit across a window's edge.
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._lock = threading.Lock()   # test-then-hit as one step across handler threads

    def describe(self) -> str:
        """The limits in words: "30 per minute, 600 per hour"."""
        return ", ".join(f"{item.amount} per "
                         + (f"{item.multiples} {item.GRANULARITY.name}s" if item.multiples > 1
                            else item.GRANULARITY.name)
                         for item in self.items)

    def hit(self, client: str | None) -> int | None:
        """Count one new link for `client` (an address) and return None, or, when any limit
        is used up, count nothing and return the seconds until it allows one (>= 1)."""
        key = client_key(client)
        with self._lock:
            full = [item for item in self.items if not self._limiter.test(item, key)]
            if not full:
                for item in self.items:
                    self._limiter.hit(item, key)
                return None
        resets = (self._limiter.get_window_stats(item, key).reset_time for item in full)
        return max(1, math.ceil(max(resets) - time.time()))


def check_spec(spec: str) -> str:
    """spec, when limits reads it as one or more rates (or it is empty). Raises ValueError."""
    try:
        if spec.strip():
            parse_many(spec)
    except ValueError:
        raise ValueError('not a rate such as "30/minute;600/hour" (empty: no limit)') from None
    return spec


def client_key(address: str | None) -> str:
    """The key a client's links are counted under: an IPv6 address by its /64."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:   # no address (a unix socket) or a test client's name
        return address or "unknown"
    if ip.version == 6:
        if ip.ipv4_mapped is not None:   # an IPv4 client on a dual-stack socket
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)
