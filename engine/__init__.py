"""gradwalk's autodiff engine: program text -> DAG -> forward and reverse-mode trace events.

Pure numpy and networkx; no web code. The public entry points are
`engine.trace.runner.run_trace` (the whole trace as a dict) and `engine.trace.runner.iter_events`
(the events as they are produced).
"""
