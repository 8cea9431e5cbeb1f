"""LinkStore on its own: several processes opening a fresh database and racing one insert.

Runs on SQLite and on PostgreSQL (GRADWALK_TEST_POSTGRES_URL; see test_short_links.py).
"""
from __future__ import annotations

import multiprocessing

import pytest
import sqlalchemy as sa

from link_servers import fresh_postgres_database
from gradwalk.server.storage import LinkStore, StorageUnavailable

PROCESSES = 6


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'sub' / 'links.db'}"
    else:
        with fresh_postgres_database() as url:
            yield url


def _first_start(url: str, barrier, results) -> None:
    # A new process, as a worker is: its own engine, its own migration attempt, then the insert.
    store = LinkStore(url, timeout=30)
    barrier.wait(timeout=60)
    try:
        store.open()
        results.put(("ok", store.create({"v": 1, "program": "a = 1.0"})[1]))
    except Exception as e:   # noqa: BLE001 - reported to the parent, which fails the test
        results.put(("error", f"{type(e).__name__}: {e}"))
    finally:
        store.close()


def test_processes_starting_at_once_migrate_once_and_insert_once(db_url):
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(PROCESSES), ctx.Queue()
    procs = [ctx.Process(target=_first_start, args=(db_url, barrier, results))
             for _ in range(PROCESSES)]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert all(kind == "ok" for kind, _ in outcomes), outcomes
    assert sorted(created for _, created in outcomes) == [False] * (PROCESSES - 1) + [True]
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).all() == [
            ("0003_live_rooms",)]   # the newest revision
        assert conn.execute(sa.text("SELECT count(*) FROM links")).scalar() == 1
    engine.dispose()


def test_round_trip_and_idempotence(db_url):
    store = LinkStore(db_url)
    state = {"v": 1, "program": "ä = 1.0", "font": 1.25, "hide_program": False}
    key, created = store.create(state)
    assert created and store.create(dict(reversed(state.items()))) == (key, False)
    assert store.get(key) == state and store.get("AAAAAAAAAAAAAAAA") is None
    assert store.count() == 1
    store.close()


def test_an_unreachable_database_raises_storage_unavailable(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    store = LinkStore(f"sqlite:///{blocker / 'links.db'}", timeout=1)   # folder is a file
    with pytest.raises(StorageUnavailable, match="unavailable"):
        store.create({"v": 1})
    with pytest.raises(StorageUnavailable):   # retried, still down
        store.get("AAAAAAAAAAAAAAAA")
