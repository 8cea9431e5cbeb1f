"""The page state's fields, typed as static/js/state.js FIELDS types them (its `check`s).

A state a live room hands out goes to every student's page, which checks it field by field
(state.js checkState) and drops what it refuses; the room's POST refuses such a state instead
(422 naming the field), so the lecturer hears of it and the students never get it. Unknown
fields pass (a newer page's), as the page ignores them.
"""
from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import (BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator,
                      model_validator)

from gradwalk.server.settings import get_settings
from gradwalk.server.storage.canonical import MAX_SAFE_INT as MAX_SAFE, state_problem

Count = Annotated[int, Field(strict=True, ge=0, le=MAX_SAFE)]
Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]
SPEEDS = (0.5, 1, 2, 4, 8, 16)   # state.js SPEEDS: events per second
QUIZ = re.compile(r"(|adjoints|values|fanout|nodes:[^\W\d]\w*(,[^\W\d]\w*)*)")  # quiz.js: names as Python reads them
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

    @model_validator(mode="before")
    @classmethod
    def _object(cls, state: object) -> object:
        if not isinstance(state, dict):
            raise ValueError('the state is an object: {"v": 1, "program": ..., "step": ...}')
        # what JSON holds and the page cannot (a lone surrogate, an integer past 2**53 - 1),
        # said with its place before any field's type is judged
        problem = state_problem(state)
        if problem is not None:
            raise ValueError(problem)
        return state

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
        if not QUIZ.fullmatch(quiz):
            raise ValueError('quiz is "", "adjoints", "values", "fanout" or "nodes:a,b"')
        return quiz

    @field_validator("train_steps")
    @classmethod
    def _steps(cls, steps: int) -> int:
        most = get_settings().max_train_steps
        if steps > most:
            raise ValueError(f"train_steps is at most {most:,} on this server "
                             "(GRADWALK_MAX_TRAIN_STEPS)")
        return steps
