"""The page state's fields, typed as static/js/state.js FIELDS types them (its `check`s).

One check for every state the server keeps: a live room's (POST /api/live, its steps) and a
short link's (POST /api/links). The page that opens it checks it field by field (state.js
checkState) and drops what it refuses; the server refuses such a state instead (422 naming
the field), so the sender hears of it and no one opens a link or follows a room that lost a
field on the way. Unknown fields pass (a newer page's), as the page ignores them.

A state of a newer version (v > VERSION: a lecturer's page from a newer gradwalk than this
server's) is kept without judging its fields by this version's types, which it need not
follow: only what JSON cannot carry to a page is refused (state_problem). This version's pages
refuse it whole, saying so (a room: static/js/live.js roomRefusal; a link: LINK_ERRORS.newer).
"""
from __future__ import annotations

import keyword
import re
from typing import Annotated, Any, Literal

from pydantic import (BaseModel, ConfigDict, Field, ModelWrapValidatorHandler, PrivateAttr,
                      StrictBool, StrictStr, ValidationError, field_validator, model_validator)

from gradwalk.server.settings import get_settings
from gradwalk.server.storage.canonical import (MAX_SAFE_INT as MAX_SAFE, canonical_json,
                                               state_problem)

VERSION = 1   # static/js/state.js VERSION: the newest state this server's pages read

Count = Annotated[int, Field(strict=True, ge=0, le=MAX_SAFE)]
Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]
SPEEDS = (0.5, 1, 2, 4, 8, 16)   # state.js SPEEDS: events per second
QUIZ_PRESETS = ("", "adjoints", "values", "fanout")   # quiz.js PRESETS, and "" (no quiz)
GROUP = re.compile(r"g\d{1,7}")   # an expanded group's id (state.js groupIds)
MAX_OPEN_GROUPS = 64


class PageState(BaseModel):
    """The contract's state object ({v, program, step, ...}); each field optional but "v"."""

    model_config = ConfigDict(extra="allow", strict=True)
    v: Annotated[int, Field(strict=True, ge=1, le=MAX_SAFE)]
    preset: StrictStr = ""
    program: StrictStr = ""
    output: StrictStr = ""
    step: Count = 0
    speed: Number = 2
    theme: Literal["auto", "light", "dark", "projector"] = "auto"
    font: Annotated[float, Field(strict=True, ge=0.5, le=3)] = 1
    hide_program: StrictBool = False
    mode: Literal["reverse", "forward", "train"] = "reverse"
    tangent: StrictStr = ""
    tangent_direction: Literal["element", "random"] = "element"
    tangent_element: Count = 0
    tangent_seed: Count = 1
    group_above: Count = 400
    open_groups: Annotated[list[StrictStr], Field(max_length=MAX_OPEN_GROUPS)] = []
    train_steps: Annotated[int, Field(strict=True, ge=1)] = 300
    train_lr: Annotated[float, Field(strict=True, gt=0, le=1e6, allow_inf_nan=False)] = 0.5
    train_optimizer: Literal["sgd", "momentum", "adam"] = "sgd"
    train_bug: StrictBool = False
    train_iteration: Count = 0
    train_chosen: StrictBool = False
    quiz: StrictStr = ""
    quiz_seed: Count = 0
    quiz_grid: StrictBool = False
    diff_base: StrictStr = ""

    _sent: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _object(cls, state: Any, fields: ModelWrapValidatorHandler[PageState]) -> PageState:
        if isinstance(state, cls):
            return state
        problem = _whole_problem(state)
        if problem is not None:
            raise ValueError(problem)
        try:   # a newer page's fields are its own (the module's docstring): kept, not judged
            checked = cls.model_construct(v=state["v"]) if state["v"] > VERSION else fields(state)
        except ValidationError as e:
            # said from the state as state_problem says it, whatever body holds the state:
            # "state.step: ..." from a live room's POST and a short link's alike
            raise ValueError(_field_problem(e.errors(include_url=False)[0])) from None
        checked._sent = state
        return checked

    def sent(self) -> dict[str, Any]:
        """The state as sent (the fields absent stay absent, numbers as written), checked."""
        return self._sent

    def canonical(self) -> bytes:
        """The state's canonical JSON (storage/canonical.py), without walking it again: the
        check walked it already (state_problem)."""
        return canonical_json(self._sent, checked=True)

    @field_validator("speed")
    @classmethod
    def _speed(cls, value: float) -> float:
        if value not in SPEEDS:
            raise ValueError(f"speed is one of {', '.join(map(str, SPEEDS))} (events per second)")
        return value

    @field_validator("open_groups")
    @classmethod
    def _groups(cls, ids: list[str]) -> list[str]:
        bad = next((i for i in ids if not GROUP.fullmatch(i)), None)
        if bad is not None:
            raise ValueError(f'a group id is "g" and up to 7 digits, not {bad[:20]!r}')
        return ids

    @field_validator("quiz")
    @classmethod
    def _quiz(cls, quiz: str) -> str:
        if not is_quiz(quiz):
            raise ValueError('quiz is "", "adjoints", "values", "fanout" or "nodes:a,b" '
                             "(names as Python reads them)")
        return quiz

    @field_validator("train_steps")
    @classmethod
    def _steps(cls, steps: int) -> int:
        most = get_settings().max_train_steps
        if steps > most:
            raise ValueError(f"train_steps is at most {most:,} on this server "
                             "(GRADWALK_MAX_TRAIN_STEPS)")
        return steps


def is_quiz(spec: str) -> bool:
    """Whether `spec` is a quiz field static/js/quiz.js QUIZ_PATTERN takes: a preset, or
    "nodes:" and names separated by commas, each a Python identifier that is not a keyword
    (soft keywords such as `match` are names). The same table runs through both:
    tests/cases/quiz_names.json."""
    if spec in QUIZ_PRESETS:
        return True
    names = spec.removeprefix("nodes:").split(",")
    return spec.startswith("nodes:") and all(n.isidentifier() and not keyword.iskeyword(n)
                                              for n in names)


def _whole_problem(state: Any) -> str | None:
    """What is wrong with `state` as a whole, said with its place, or None: not an object, a
    value JSON holds and the page cannot (a lone surrogate, an integer past 2**53 - 1; said
    before any field's type is judged), no version."""
    if not isinstance(state, dict):
        return 'the state is an object: {"v": 1, "program": ..., "step": ...}'
    problem = state_problem(state)
    if problem is not None:
        return problem
    v = state.get("v")
    if type(v) is not int or v < 1:
        return 'state.v: the state needs a version "v", an integer >= 1'
    return None


def _field_problem(error: dict) -> str:
    """A field's pydantic error said with its place in the state: "state.open_groups[0]: ..."."""
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"])
    return f"state{where}: {str(error['msg']).removeprefix('Value error, ')}"
