"""POST /api/train (the whole run as JSON) and POST /api/train/stream (one event per iteration,
Server-Sent Events), issue 15 §2.

A training run is read, parsed and queued as a trace is (server/routers/traces.py), and takes
a trace slot while it computes; its limits are settings (server/training.py). The events and
the JSON answer are the engine's (engine/train; docs/trace-format.md, "Training").
"""
from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import Field, StrictFloat, StrictInt, field_validator

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.train.config import MAX_LR, check_lr
from gradwalk.server.deps import SettingsDep, SlotsDep
from gradwalk.server.jsonbody import queue_share
from gradwalk.server.openapi import TRAIN_SSE_RESPONSE
from gradwalk.server.routers.traces import (ERRORS, STREAM_ERRORS, EventStream, ProgramRequest, _once,
                                   _sent, read_and_parse)
from gradwalk.server.training import train_config, train_json, train_stream
from gradwalk.server.tracing import error_event

router = APIRouter(prefix="/api", tags=["train"])
MAX_RECORD_ITEMS = 64   # the schema's bound on `record`; the setting's is smaller (items)


class TrainRequest(ProgramRequest):
    """A program whose leaves are the parameters, and how to train them."""

    steps: StrictInt = Field(ge=1, description="iterations to run (each: forward, zero_grad, "
                             "backward, update); at most GRADWALK_MAX_TRAIN_STEPS")
    lr: StrictFloat | StrictInt = Field(
        description="the learning rate, above 0 and at most 1e6 (the CLI's bound too)",
        json_schema_extra={"exclusiveMinimum": 0, "maximum": MAX_LR})
    optimizer: Literal["sgd", "momentum", "adam"] = Field(
        default="sgd", description="the update rule (docs/trace-format.md, \"Training\")")
    record: list[StrictInt] = Field(
        default_factory=list, max_length=MAX_RECORD_ITEMS, description="iterations (0-based) "
        "whose whole trace the answer carries, each steppable in the page; at most "
        "GRADWALK_MAX_TRAIN_RECORD of them")
    bugs: list[Literal["no_zero_grad"]] = Field(
        default_factory=list, max_length=1, description="the bug lab in training: "
        "no_zero_grad lets the adjoints pile up across iterations")

    @field_validator("lr")
    @classmethod
    def _rate(cls, lr: float) -> float:   # the engine's check and words (NaN included)
        try:
            check_lr(lr)
        except ProgramError as e:
            raise ValueError(e.message) from None
        return lr


TRAIN_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": TrainRequest.model_json_schema()}}}}


@router.post("/train", openapi_extra=TRAIN_BODY, responses=ERRORS,
             response_description="{version, losses, accuracy, params, dead_units, diverged, "
                                  "recorded, boundary, data, classes}")
async def train(request: Request, settings: SettingsDep, slots: SlotsDep) -> Response:
    """The whole run: the loss before each update, the final accuracy and parameters, the
    dead units, the recorded iterations' traces. 422 on a program error or past a limit."""
    async with queue_share(request, settings, slots) as wait:
        body, program = await read_and_parse(request, settings, wait, TrainRequest)
        data = await wait.trace(train_json, program, train_config(body, settings), settings,
                               body.dtype)
    return Response(data, media_type="application/json")


@router.post("/train/stream", response_class=EventStream, openapi_extra=TRAIN_BODY,
             responses={200: TRAIN_SSE_RESPONSE, **STREAM_ERRORS})
async def train_events(request: Request, settings: SettingsDep, slots: SlotsDep) -> EventStream:
    """One SSE per event: `start`, then `iteration` (one each, with its loss), `diverged`
    (once), `boundary`, `dead`, `recorded` as they come, and `done`; or one `error` (status 200). A malformed
    request is refused before the stream starts (422, 413, 415, 408; 503 `busy`)."""
    async with queue_share(request, settings, slots) as wait:
        try:
            body, program = await read_and_parse(request, settings, wait, TrainRequest)
        except ProgramError as e:
            return EventStream(_once(error_event(e.to_dict())))
        feed = await wait.produce(train_stream, program, train_config(body, settings),
                                  settings, body.dtype)
    return EventStream(_sent(feed), feed)
