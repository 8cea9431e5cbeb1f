"""The `%%gradwalk` cell magic (issue 18 §2): the cell's text is the program, the cell's
result the notebook widget (server/widget.py show).

    %load_ext gradwalk
    %%gradwalk --mode forward --step 3 --output L
    a = 2.0
    L = a * a

Options: --output NAME, --mode reverse|forward, --step N, --theme auto|light|dark|projector.
A bad option is IPython's UsageError (one line, no traceback); a refused program is shown as
its message (ProgramError's, one line), not raised, so the cell says what to fix.
Registered by load_ipython_extension (IPython's extension protocol:
https://ipython.readthedocs.io/en/stable/config/extensions/).
"""
from __future__ import annotations

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring


@magic_arguments()
@argument("--output", default=None, help="the name whose gradient is taken (default: the last assigned)")
@argument("--mode", default="reverse", help="reverse (the backward pass) or forward (tangents)")
@argument("--step", type=int, default=0, help="the step to open on (0: the start)")
@argument("--theme", default="auto", help="auto, light, dark or projector")
def gradwalk(line: str, cell: str):
    """Show the cell's program as a gradwalk walk (the widget)."""
    import traitlets

    from gradwalk.engine.errors import ProgramError
    from gradwalk.server.widget import show

    args = parse_argstring(gradwalk, line)
    try:
        return show(cell, output=args.output, mode=args.mode, step=args.step, theme=args.theme)
    except traitlets.TraitError as e:
        raise UsageError(f"%%gradwalk: {e}") from None
    except ProgramError as e:
        raise UsageError(f"%%gradwalk: not traced: {e}" + (f" {e.hint}" if e.hint else "")) from None


def load_ipython_extension(ipython) -> None:
    """`%load_ext gradwalk`: registers %%gradwalk."""
    ipython.register_magic_function(gradwalk, magic_kind="cell", magic_name="gradwalk")
