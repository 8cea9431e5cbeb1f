"""One source for the engine's limits (issue 15 §1, cleanup): server/settings.py's defaults of
the trace and training limits are read from engine/trace/limits.py (Limits, TrainLimits), not
written again, so a default changed in the engine is the server's and the CLI's default too."""
from __future__ import annotations

import ast
import dataclasses
import inspect

import gradwalk.server.settings as settings_module
from gradwalk.engine.trace.limits import Limits, TrainLimits
from gradwalk.server.settings import Settings
from gradwalk.server.training import train_limits
from gradwalk.server.tracing import limits

# setting -> (the engine's class, its field)
FROM_ENGINE = {
    "max_inline_elements": (Limits, "inline"), "max_elements": (Limits, "max_elements"),
    "max_nodes": (Limits, "max_nodes"), "max_total_elements": (Limits, "max_total_elements"),
    "max_flops": (Limits, "max_flops"), "max_response_bytes": (Limits, "max_response_bytes"),
    "max_statements": (Limits, "max_statements"), "max_depth": (Limits, "max_depth"),
    "max_train_steps": (TrainLimits, "max_steps"),
    "max_train_elements": (TrainLimits, "max_element_steps"),
    "max_train_flops": (TrainLimits, "max_flop_steps"),
    "max_train_record": (TrainLimits, "max_recorded"),
}


def test_each_engine_limit_default_is_read_from_the_engine_not_written_again():
    tree = ast.parse(inspect.getsource(settings_module))
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Settings").body
    defaults = {n.target.id: n.value for n in body if isinstance(n, ast.AnnAssign)}
    for name, (cls, field) in FROM_ENGINE.items():
        value = defaults[name]
        assert isinstance(value, ast.Attribute) and ast.unparse(value) == \
            f"{cls.__name__}.{field}", f"{name} = {ast.unparse(value)}"
        assert getattr(Settings(), name) == getattr(cls(), field)


def test_every_field_of_the_engines_limits_has_its_setting():
    """A limit added to the engine without a setting could not be changed by an operator
    (the wall-clock budgets and a run's trace limits are the server's own settings)."""
    covered = {(cls, field) for cls, field in FROM_ENGINE.values()}
    for cls, own in ((Limits, {"timeout_seconds"}), (TrainLimits, {"timeout_seconds", "trace"})):
        fields = {f.name for f in dataclasses.fields(cls)} - own
        assert fields == {field for c, field in covered if c is cls}


def test_default_settings_make_the_engines_default_limits():
    s = Settings()
    assert limits(s) == Limits(timeout_seconds=s.trace_timeout_seconds)
    assert train_limits(s) == TrainLimits(timeout_seconds=s.train_timeout_seconds,
                                          trace=limits(s))
