"""gradwalk's autodiff engine: program text -> DAG -> forward and reverse-mode trace events.

Pure numpy and networkx; no web code. The public entry points are
`engine.trace.runner.trace_json` (the body as JSON bytes), `run_trace` (the same as a dict) and
`Tracer` (its `records()` and `events()` as they are produced).
"""
