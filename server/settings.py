"""Settings from the environment (prefix GRADWALK_), with pydantic-settings."""
from __future__ import annotations

from functools import lru_cache

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """max_inline_elements: tensors up to this many elements carry data in events (elements).
    max_elements: the largest value one node may hold (elements).
    max_nodes: the most nodes one program may make (nodes).
    max_total_elements: the sum of all values' sizes (elements); bounds memory.
    max_flops: the forward pass's floating-point operations (FLOPs); bounds time.
    max_concurrent_traces: traces computed at once (the machine has few cores; more would
        only share them and multiply the memory).
    busy_timeout_seconds: how long a request waits for a free slot before a 503 (seconds).
    max_program_chars: the longest program accepted (characters); a 100,000-node chain fits.
    """

    model_config = SettingsConfigDict(env_prefix="GRADWALK_")

    max_inline_elements: int = 64
    max_elements: int = 1_000_000
    max_nodes: int = 120_000
    max_total_elements: int = 5_000_000
    max_flops: int = 1_000_000_000
    max_concurrent_traces: int = 2
    busy_timeout_seconds: float = 10.0
    max_program_chars: int = 2_000_000


@lru_cache
def get_settings() -> Settings:
    return Settings()
