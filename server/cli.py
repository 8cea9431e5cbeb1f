"""The `gradwalk` command: `gradwalk serve` and `gradwalk trace FILE|-`."""
from __future__ import annotations

import argparse
import json
import sys

from engine.errors import ProgramError
from engine.trace.table import render_table
from server.settings import get_settings
from server.tracing import trace_body


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gradwalk", description="Step through backprop.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the web app")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    trace = sub.add_parser("trace", help="trace a program file ('-' reads stdin)")
    trace.add_argument("file")
    trace.add_argument("--format", choices=("json", "table"), default="json")
    trace.add_argument("--output", default=None, help="the name to differentiate")
    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args.host, args.port)
    return _trace(args.file, args.format, args.output)


def _serve(host: str, port: int) -> int:
    import uvicorn

    print(f"gradwalk: open http://{host}:{port}/", flush=True)
    uvicorn.run("server.main:create_app", factory=True, host=host, port=port)
    return 0


def _trace(path: str, fmt: str, output: str | None) -> int:
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"gradwalk: cannot read {path}: {e}", file=sys.stderr)
        return 2
    try:
        body = trace_body(text, output, get_settings())
    except ProgramError as e:
        print(f"gradwalk: {path}: {e}", file=sys.stderr)
        if fmt == "json":
            print(json.dumps({"error": e.to_dict()}, separators=(",", ":")))
        return 1
    except Exception as e:   # noqa: BLE001 - a bug of ours: one line, not a traceback
        print(f"gradwalk: internal error ({type(e).__name__}: {e}); please report it",
              file=sys.stderr)
        return 3
    if fmt == "json":
        sys.stdout.buffer.write(body)
        sys.stdout.buffer.write(b"\n")
    else:
        sys.stdout.write(render_table(json.loads(body)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
