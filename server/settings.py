"""Settings from the environment (prefix GRADWALK_), with pydantic-settings."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from platformdirs import user_data_path
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """max_inline_elements: tensors up to this many elements carry data in events (elements).
    max_elements: the largest value one node may hold (elements).
    max_nodes: the most nodes one program may make (nodes).
    max_total_elements: the sum of all values' sizes (elements); bounds memory.
    max_flops: the forward pass's floating-point operations (FLOPs); bounds time.
    max_response_bytes: the largest trace body (bytes), estimated from the graph before anything
        is serialized; a 100,000-node scalar chain makes about 70 MB. Larger: 422 too_large.
    max_concurrent_traces: traces computed at once (the machine has few cores; more would
        only share them and multiply the memory).
    busy_timeout_seconds: how long a request waits for a free slot before a 503 (seconds).
    max_program_chars: the longest program accepted (characters); a 100,000-node chain fits.
    max_statements: the most statements (lines) a program may have (statements).
    max_depth: how deeply an expression may nest: calls, lists and right operands count a
        level, a left-associative chain `x + x + ... + x` stays at one (levels).
    trace_timeout_seconds: the wall-clock budget of one trace once it has its slot (seconds);
        a trace past it stops and answers 422 `timeout` (an error event in the stream, exit 1
        in the CLI).
    max_body_bytes: the largest request body (bytes); the default fits a max_program_chars
        program even with every character JSON-escaped (`\\u00e9`, 6 bytes). Larger: 413.
    body_timeout_seconds: how long a request body may take to arrive (seconds); a body still
        incomplete after it answers 408 and the connection is closed.
    shutdown_timeout_seconds: on SIGTERM, how long `gradwalk serve` lets open connections (a
        slow stream client) finish before closing them (seconds).
    data_dir: where the default SQLite database lives (created on first start).
    database_url: SQLAlchemy URL of the short-link store; empty means
        `sqlite:///<data_dir>/gradwalk.db`; PostgreSQL as `postgresql+psycopg://user:pw@host/db`.
    database_timeout_seconds: how long to wait for the database (connect, or a SQLite lock)
        before a link request answers 503 (seconds).
    links_enabled: short links on; off for a stateless deployment (the page hides the button).
    max_link_state_bytes: the largest short-link state, as canonical UTF-8 JSON (bytes).
    """

    model_config = SettingsConfigDict(env_prefix="GRADWALK_")

    max_inline_elements: int = 64
    max_elements: int = 1_000_000
    max_nodes: int = 120_000
    max_total_elements: int = 5_000_000
    max_flops: int = 1_000_000_000
    max_response_bytes: int = 100_000_000
    max_concurrent_traces: int = 2
    busy_timeout_seconds: float = 10.0
    max_program_chars: int = 2_000_000
    max_statements: int = 120_000
    max_depth: int = 100
    trace_timeout_seconds: float = 20.0
    max_body_bytes: int = 16 * 1024 * 1024
    body_timeout_seconds: float = 30.0
    shutdown_timeout_seconds: float = 5.0
    data_dir: Path = user_data_path("gradwalk")
    database_url: str = ""
    database_timeout_seconds: float = 10.0
    links_enabled: bool = True
    max_link_state_bytes: int = 65_536

    def link_database_url(self) -> str:
        """The database_url, or the SQLite file in data_dir when it is empty."""
        return self.database_url or f"sqlite:///{self.data_dir.expanduser() / 'gradwalk.db'}"


@lru_cache
def get_settings() -> Settings:
    return Settings()
