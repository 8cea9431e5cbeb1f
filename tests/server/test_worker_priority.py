"""The trace workers' CPU priority is the setting trace_worker_nice (issue 14 §2, /healthz
under load): a real `gradwalk serve` and the worker that ran its trace, read from /proc. The server's own nice is whatever this process's
is (CI may nice the suite); the kernel caps a nice at 19."""
from __future__ import annotations

import os

import pytest

from server_process import descendants, post, served
from gradwalk.server.settings import SettingError, Settings, from_environment


def _worker_nices(server_pid: int) -> list[int]:
    """The nice of each trace worker under the server: the processes that lead a session
    of their own (server/worker_process.py `_own_group`; the forkserver does not)."""
    return [os.getpriority(os.PRIO_PROCESS, pid) for pid in descendants(server_pid)
            if _leads_a_session(pid)]


def _leads_a_session(pid: int) -> bool:
    try:
        return os.getsid(pid) == pid
    except ProcessLookupError:
        return False


@pytest.mark.parametrize("setting", [None, 4])
def test_a_trace_worker_runs_as_much_nicer_than_the_server_as_the_setting_says(tmp_path,
                                                                                setting):
    nice = Settings().trace_worker_nice if setting is None else setting
    settings = {} if setting is None else {"trace_worker_nice": setting}
    with served(tmp_path, **settings) as server:
        # a worker that has answered has set its priority (it may still be starting when
        # the server first answers /healthz)
        assert post(f"{server.url}/api/trace", {"program": "x = 2.0\nL = x * x"})[0] == 200
        server_nice = os.getpriority(os.PRIO_PROCESS, server.proc.pid)
        assert _worker_nices(server.proc.pid) == [min(server_nice + nice, 19)]
    assert Settings().trace_worker_nice == 10   # the documented default


@pytest.mark.parametrize("value", ["-1", "20", "high"])
def test_a_nice_the_worker_cannot_take_is_refused_naming_the_setting(monkeypatch, value):
    monkeypatch.setenv("GRADWALK_TRACE_WORKER_NICE", value)
    with pytest.raises(SettingError, match=f"GRADWALK_TRACE_WORKER_NICE={value!r}"):
        from_environment()
