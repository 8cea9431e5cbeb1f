"""POST /api/quiz/mistakes: the quiz's mistakes table (engine/mistakes.py) for a program, so the
page can name the mistake a wrong answer is (issue 16, section 1). The answers themselves are
the trace's own numbers: the page never sends an answer here, and no score leaves the page.

Like POST /api/trace (routers/traces.py): the body is read, validated and parsed in worker
threads, and the table is made while holding a trace slot, within the same limits; a program
over GRADWALK_MAX_QUIZ_NODES nodes is 422 too_large.
"""
from __future__ import annotations

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from gradwalk.engine.mistakes import mistakes
from gradwalk.server.deps import SettingsDep, SlotsDep
from gradwalk.server.jsonbody import queue_share
from gradwalk.server.routers.traces import ERRORS, ProgramRequest, read_and_parse
from gradwalk.server.settings import Settings
from gradwalk.server.tracing import limits

router = APIRouter(prefix="/api", tags=["quiz"])


class QuizRequest(ProgramRequest):
    """A program and the name to differentiate, read as POST /api/trace reads them."""


REQUEST_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": QuizRequest.model_json_schema()}}}}


def _table(program, body: QuizRequest, settings: Settings) -> bytes:
    return orjson.dumps(mistakes(program, body.output, limits(settings),
                                 settings.max_quiz_nodes))


@router.post("/quiz/mistakes", openapi_extra=REQUEST_BODY, responses=ERRORS,
             response_description="{adjoint: {node: [{kind, value, text}]}, value: {...}}")
async def quiz_mistakes(request: Request, settings: SettingsDep, slots: SlotsDep) -> Response:
    """For every scalar node, the wrong numbers known mistakes give for its adjoint (the bug
    lab's engines, hand slips) and for its value, most telling first. 422 on a program
    error, or a program over max_quiz_nodes nodes (`too_large`)."""
    async with queue_share(request, settings, slots) as wait:
        body, program = await read_and_parse(request, settings, wait, QuizRequest)
        data = await wait.trace(_table, program, body, settings)
    return Response(data, media_type="application/json")
