"""The `gradwalk` command: `gradwalk serve`, `gradwalk trace FILE|-`, `gradwalk export FILE|-`,
`gradwalk train FILE|-` (server/cli_train.py).

Every failure prints one line to stderr and exits with a code from EXIT_CODES; never a
traceback. The engine and the server are imported inside main(), so a Ctrl-C while they load is
an interruption like any other (and a one-line program does not pay for the server's imports).
"""
from __future__ import annotations

import argparse
import copy
import os
import json
import sys
import warnings

from gradwalk.server import cli_train
from gradwalk.server.cli_io import (InputError, OutputError, read_program, say, silence_stdout,
                           write_stdout)
from gradwalk.server.cli_numbers import finite_json, number, refusal, whole

EXIT_CODES = """exit codes:
  0    success
  1    the program was refused (an error with its line and column, or a limit)
  2    usage error (also a GRADWALK_ setting of the wrong type), or the input cannot be read
       (no such file, not UTF-8, stdin closed), or `serve` cannot listen on the address
       (a port in use, a host that does not resolve; nothing is started) or its server
       stopped before it served (the app cannot be built; workers are not restarted)
  3    an internal error of gradwalk (please report it)
  4    the output cannot be written (stdout closed, a broken pipe as in `| head`, a full
       disk, -o fails)
  5    `trace --check`: the trace was written, and the gradient check disagrees at some leaf
       (0 when every leaf agrees)
  130  interrupted (Ctrl-C)"""
CHECK_DISAGREES = 5


class _Parser(argparse.ArgumentParser):
    """argparse, held to the CLI's promise: a usage error is one line on stderr (exit 2), and
    --help is written as any output is, so a closed pipe or a full disk is exit 4."""

    def error(self, message: str):
        if message.startswith("the following arguments are required: command"):
            message = _no_command(self, message)
        where = self.prog.removeprefix("gradwalk").strip()
        say(f"{where + ': ' if where else ''}{message} (see `{self.prog} --help`)")
        raise SystemExit(2)

    def _print_message(self, message: str, file=None) -> None:
        if message and (file is None or file is sys.stdout):
            write_stdout(message.encode())
        elif message:
            super()._print_message(message, file)


def _no_command(parser: argparse.ArgumentParser, message: str) -> str:
    """argparse's "required: command" names what was typed instead, if anything: `gradwalk
    --bogus` said only that a command is required, never naming --bogus (a review)."""
    typed = [a for a in getattr(parser, "argv", ()) if a.startswith("-")]
    if not typed:
        return message
    commands = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return f"unrecognized arguments: {' '.join(typed)}; give a command first: {', '.join(commands)}"


def _name(value: str) -> str:
    """--output's type: a name of the program. `--output out.md` is a slip for `-o out.md`,
    said in one line (argparse: exit 2) rather than as an unknown name after tracing."""
    if not value.isidentifier():
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a name: --output takes the name to differentiate (e.g. L); "
            "`gradwalk export` writes its file with -o FILE")
    return value


def _port(value: str) -> int:
    """--port's type: a TCP port, 1 to 65535."""
    port = whole(value, 1)
    if port is None or port > 65535:
        raise refusal(value, "a port", "a number from 1 to 65535")
    return port


def _workers(value: str) -> int:
    """--workers' type: 1 to server.serve.max_workers() (checked before anything starts)."""
    from gradwalk.server.serve import MAX_WORKERS_PER_CORE, cores, max_workers

    n = whole(value, 1)
    if n is None:
        raise refusal(value, "a number of processes", "a whole number from 1")
    if n > max_workers():
        raise argparse.ArgumentTypeError(
            f"{value[:40]} is more than the most this machine takes, {max_workers()} "
            f"({MAX_WORKERS_PER_CORE} per core, {cores()} cores)")
    return n


def _json_value(value: str, example: str = "a number or a list such as '[1, 0, 2]'"):
    """--output-grad's type: a JSON number or nested list of finite numbers (its shape is
    checked by the engine, against the program: exit 1)."""
    return finite_json(value, example)


def _json_object(value: str) -> dict:
    """--tangents' and --vector's type: a JSON object {leaf: number or nested list}."""
    data = _json_value(value, "an object {leaf: value}, e.g. '{\"a\": 1}'")
    if not isinstance(data, dict):
        raise refusal(value, "a JSON object", "{leaf: value}, e.g. '{\"a\": 1}'")
    return data


def _step(value: str) -> float:
    """--eps's type: a number with 0 < h <= 1 (the request's eps)."""
    return number(value, "a step", "a number with 0 < H <= 1, e.g. 1e-6", lambda h: 0 < h <= 1)


def _mode_flags(trace) -> None:
    """Issue 9's request fields as flags (docs/trace-format.md, "Request fields")."""
    trace.add_argument("--mode", choices=("reverse", "forward", "hvp"), default="reverse",
                       help="reverse (the backward pass, default), forward (tangents carried "
                            "forward: a Jacobian-vector product) or hvp")
    trace.add_argument("--tangents", default=None, type=_json_object, metavar="JSON",
                       help="forward mode: {leaf: tangent} as JSON, e.g. '{\"a\": 1}' "
                            "(default: 1 on the first leaf's first element, 0 elsewhere)")
    trace.add_argument("--vector", default=None, type=_json_object, metavar="JSON",
                       help="hvp mode: {leaf: vector entry} as JSON (leaves not named get 0)")
    trace.add_argument("--check", action="store_true",
                       help="add the gradient check (central differences) to the result; "
                            "exit 5 when some leaf disagrees (the result is written first)")
    trace.add_argument("--eps", default=None, type=_step, metavar="H",
                       help="the gradient check's step scale (default 1e-6)")
    trace.add_argument("--bug", dest="bugs", action="append", default=[], metavar="NAME",
                       help="a bug-lab switch (repeatable): overwrite, wrong_order, "
                            "no_zero_grad, zero_grad, inplace (engine/switches.py)")


def _options(args):
    from gradwalk.engine.trace.options import Options

    return Options(mode=args.mode, tangents=args.tangents, vector=args.vector,
                   check=args.check, eps=args.eps, bugs=tuple(args.bugs))


def main(argv: list[str] | None = None) -> int:
    # a value numpy warns about (overflow, 0/0) is reported by the trace itself
    # (first_non_finite, the error's message); stderr carries gradwalk's one line only
    warnings.simplefilter("ignore", RuntimeWarning)
    try:
        return _main(argv)
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except OutputError as e:
        silence_stdout()
        say(str(e))
        return 4
    except Exception as e:   # noqa: BLE001 - a bug of ours: one line, not a traceback
        say(f"internal error ({type(e).__name__}: {e}); please report it")
        return 3


def _version() -> str:
    """The installed distribution's version (pyproject.toml's), or "unknown" when run from a
    checkout that was never installed."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("gradwalk")
    except PackageNotFoundError:
        return "unknown"


def _main(argv: list[str] | None) -> int:
    from gradwalk.server.exports import FORMATS

    parser = _Parser(prog="gradwalk", description="Step through backprop.",
                                     epilog=EXIT_CODES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"gradwalk {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the web app")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, default=8000, help="1 to 65535 (default 8000)")
    serve.add_argument("--workers", type=_workers, default=1, metavar="N",
                       help="server processes sharing the port and the link database (default "
                            "1; at most 4 per core, server/serve.py MAX_WORKERS_PER_CORE)")
    trace = sub.add_parser("trace", help="trace a program file ('-' reads stdin)",
                           epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    trace.add_argument("file")
    trace.add_argument("--format", choices=("json", "table"), default="json")
    trace.add_argument("--output", default=None, type=_name, help="the name to differentiate")
    trace.add_argument("--dtype", choices=("float64", "float32"), default=None,
                       help="every value's type (default: the program's `# dtype:` first line, "
                            "else float64)")
    trace.add_argument("--output-grad", default=None, type=_json_value, metavar="JSON",
                       help="the output's starting adjoint as JSON, e.g. '[1, 0, 2]' "
                            "(PyTorch's gradient=; default: ones)")
    _mode_flags(trace)
    export = sub.add_parser("export", help="a file of a program's walk ('-' reads stdin)")
    export.add_argument("file")
    export.add_argument("--format", choices=tuple(FORMATS), required=True,
                        help="html: standalone page; md, tex: backward table; json: trace; "
                             "torch: the program as PyTorch code printing its gradients")
    export.add_argument("-o", dest="out", default="-", help="the file to write (default stdout)")
    export.add_argument("--output", default=None, type=_name,
                        help="the name to differentiate (the file to write is -o)")
    cli_train.add_parser(sub, EXIT_CODES)
    parser.argv = sys.argv[1:] if argv is None else argv   # for _no_command's message
    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args.host, args.port, args.workers)
    if args.command == "export":
        return _export(args.file, args.format, args.output, args.out)
    if args.command == "train":
        return cli_train.run(args, _make)
    return _trace(args.file, args.format, args.output, args.dtype, args.output_grad,
                  _options(args))


# ---- serve ---------------------------------------------------------------------------------
def _serve(host: str, port: int, workers: int = 1) -> int:
    """Serve the app on host:port: exit 2 when the address cannot be listened on (nothing
    started) or the server (a worker) stopped before it served, 4 when the banner cannot be
    written.
    workers > 1 starts that many processes (each builds its own app with the factory), so
    traces use several cores; they share short links through the database.

    On SIGTERM, open connections get shutdown_timeout_seconds to finish, then are closed."""
    import uvicorn

    from gradwalk.server.serve import CannotServe, listeners, run, start_listening
    from gradwalk.server.settings import SettingError, get_settings

    # Every worker reads it (server/routers/live.py: live rooms on SQLite need one process).
    os.environ["GRADWALK_SERVE_WORKERS"] = str(workers)
    try:
        settings = get_settings()
    except SettingError as e:
        say(f"bad setting {e}")
        return 2
    try:
        # One process: bound now (a port in use is said at once), listening once the app is
        # ready (server/main.py prepare); the workers of several import the app themselves.
        sockets = listeners(host, port, listen=workers > 1)
    except CannotServe as e:
        say(str(e))
        return 2
    if workers == 1:
        from gradwalk.server.main import prepare

        prepare()
        start_listening(sockets)
    try:
        write_stdout(f"gradwalk: open http://{host}:{port}/\n".encode())
    except OutputError:
        for sock in sockets:
            sock.close()
        raise
    config = uvicorn.Config("gradwalk.server.main:create_app", factory=True, host=host, port=port,
                            workers=workers,
                            # a deadline for request heads
                            http="gradwalk.server.protocol:HeaderTimeout",
                            timeout_graceful_shutdown=settings.shutdown_timeout_seconds,
                            log_config=_log_config())
    failed = run(config, sockets)
    if failed:
        say(failed)
        return 2
    return 0


def _log_config() -> dict:
    """uvicorn's logging, plus the `gradwalk` logger (our errors, with their tracebacks) on the
    same handler; without it that logger has no handler under uvicorn."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["gradwalk"] = {"handlers": ["default"], "level": "INFO",
                                     "propagate": False}
    config["handlers"]["access"]["class"] = "gradwalk.server.serve.AccessLog"   # stdout may close
    return config


# ---- trace and export ----------------------------------------------------------------------
def _trace(path: str, fmt: str, output: str | None, dtype: str | None = None,
           output_grad=None, options=None) -> int:
    from gradwalk.server import tracing
    from gradwalk.engine.trace.options import DEFAULT

    code, body = _make(path, lambda text, settings: tracing.trace_body(
        text, output, settings, output_grad, dtype, options or DEFAULT),
        json_errors=fmt == "json")
    if code:
        return code
    if fmt == "json":
        write_stdout(body + b"\n")
        data = json.loads(body) if options is not None and options.check else {}
    else:
        data = json.loads(body)
        write_stdout(_table(data, options).encode())
    if any(not row["ok"] for row in data.get("gradcheck", {}).values()):
        return CHECK_DISAGREES   # the body was written: the exit code tells a script
    return 0


def _table(data: dict, options) -> str:
    """`--format table`: the bug lab's switches first (the numbers are wrong on purpose),
    the walk's table (forward mode: the tangents; hvp: (H v)_a), the gradient check, then
    each warning as a line."""
    from gradwalk.engine.trace.table import render_table

    if options is not None and options.mode == "forward":   # tangents, no backward table
        from gradwalk.engine.trace.forward_text import render_table
    elif "hvp" in data:   # hvp mode, or a `# hvp:` line
        from gradwalk.engine.trace.hvp import render_table
    text = render_table(data)
    if data.get("bugs"):
        text = (f"BUG LAB: switches on: {', '.join(data['bugs'])}; these gradients are wrong on "
                "purpose\n\n" + text)
    if "gradcheck" in data:
        from gradwalk.engine.trace import gradcheck

        text += gradcheck.render_table(data["gradcheck"])
    if data.get("warnings"):
        text += "\n" + "".join(f"warning ({w['kind']}): {w['message']}\n"
                               for w in data["warnings"])
    return text


class _Refused(Exception):
    """Something other than the program stops the command: said in one line, exit `code`."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def _make(path: str, make, json_errors: bool = False) -> tuple[int, bytes | None]:
    """Read the program at `path` and return (0, make(text, settings)), or (exit code, None)
    having said why in one line: 2 cannot read, 1 program error (also printed as the API's
    error JSON on stdout when `json_errors`), 3 a bug of ours, or a _Refused's code."""
    from gradwalk.engine.errors import ProgramError
    from gradwalk.server.settings import SettingError, get_settings

    try:
        settings = get_settings()
    except SettingError as e:
        say(f"bad setting {e}")
        return 2, None
    try:
        text = read_program(path, settings.max_program_chars)
    except InputError as e:
        say(f"cannot read {path}: {e}")
        return 2, None
    try:
        return 0, make(text, settings)
    except ProgramError as e:
        say(_program_error(path, e))
        if json_errors:
            write_stdout(json.dumps({"error": e.to_dict()}, separators=(",", ":")).encode()
                          + b"\n")
        return 1, None
    except _Refused as e:
        say(str(e))
        return e.code, None
    except Exception as e:   # noqa: BLE001 - a bug of ours: one line, not a traceback
        say(f"internal error ({type(e).__name__}: {e}); please report it")
        return 3, None


def _export(path: str, fmt: str, output: str | None, out: str) -> int:
    """`gradwalk export`: exit 0, 1 (program error), 2 (cannot read, missing asset), 3 (ours),
    4 (cannot write)."""
    from gradwalk.server.export_html import MissingAsset
    from gradwalk.server.exports import export

    def make(text: str, settings) -> bytes:
        try:
            return export(fmt, text, output, settings)
        except MissingAsset as e:
            raise _Refused(str(e), 2) from None

    code, data = _make(path, make)
    if code:
        return code
    if fmt == "json":
        data += b"\n"
    if out == "-":
        write_stdout(data)
        return 0
    try:
        with open(out, "wb") as f:
            f.write(data)
    except OSError as e:
        say(f"cannot write {out}: {e}")
        return 4
    return 0


def _program_error(path: str, e) -> str:
    hint = f" ({e.hint})" if e.hint else ""
    return f"{path}: {e}{hint}"


if __name__ == "__main__":
    sys.exit(main())
