"""Every engine-speed benchmark, side by side in one run, written into docs/performance.md.

    .venv/bin/python -m bench.run            # or: make bench
    .venv/bin/python -m bench.run --quick    # 1e4 nodes only, widths 64 and 256 (a smoke run)

Needs the `bench` extra (`pip install -e ".[bench]"`: micrograd, PyTorch). Writes the section
between the BEGIN/END markers of docs/performance.md (other sections are left alone) and prints
it. CPU time, best of three, engines interleaved; the machine is described with the figures.
"""
from __future__ import annotations

import argparse
import datetime
import pathlib
import re

from bench import chain, cli, machine, mlp, stream

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "performance.md"
BEGIN = "<!-- BEGIN bench.run (generated: .venv/bin/python -m bench.run) -->"
END = "<!-- END bench.run -->"


def run(quick: bool) -> str:
    sizes = (10_000,) if quick else (10_000, 100_000)
    widths = (64, 256) if quick else (64, 256, 512, 1024)
    m = machine.describe()
    rows: list[tuple[str, str, str]] = []
    for n in sizes:
        us = chain.per_node_us(n)
        mem = {e: chain.peak_bytes_per_node(e, n) for e in ("gradwalk", "micrograd", "torch")}
        ratio = us["gradwalk"] / us["micrograd"]
        rows += [
            (f"chain {n:,}: gradwalk full trace (µs CPU/node)", "≤ 3 × micrograd",
             f"{us['gradwalk']:.1f} ({ratio:.1f} × micrograd)"),
            (f"chain {n:,}: gradwalk + networkx DAG (µs/node)", "-",
             f"{us['gradwalk+nx']:.1f} ({us['gradwalk+nx'] / us['micrograd']:.1f} × micrograd)"),
            (f"chain {n:,}: micrograd, GC off (µs/node)", "-", f"{us['micrograd']:.2f}"),
            (f"chain {n:,}: PyTorch 0-d float64, GC off (µs/node)", "-", f"{us['torch']:.2f}"),
            (f"chain {n:,}: ast.parse of the text alone (µs/node)", "-",
             f"{us['ast.parse']:.2f} ({us['ast.parse'] / us['micrograd']:.1f} × micrograd)"),
            (f"chain {n:,}: peak memory gradwalk / micrograd / torch (KB/node)",
             "gradwalk ≤ 2", " / ".join(f"{mem[e] / 1e3:.2f}" for e in mem)),
        ]
    for width in widths:
        r = mlp.measure_in_one_thread(width)
        numpy64 = r["numpy float64"]
        torch = "n/a" if r["torch float64"] is None else f"{r['torch float64'] * 1e3:.0f}"
        torch32 = "n/a" if r["torch float32"] is None else f"{r['torch float32'] * 1e3:.0f}"
        rows += [
            (f"MLP 256×{width}: gradwalk Tracer + events() (ms; program {r['program_mb']:.1f} MB)",
             "≤ 1.2 × numpy at 1024" if width == 1024 else "-",
             f"{r['gradwalk trace'] * 1e3:.0f} ({r['gradwalk trace'] / numpy64:.1f} × numpy)"),
            (f"MLP 256×{width}: gradwalk body (trace_json) / parse alone (ms)", "-",
             f"{r['gradwalk body'] * 1e3:.0f} / {r['gradwalk parse'] * 1e3:.0f}"),
            (f"MLP 256×{width}: numpy by hand float64 / float32 (ms)", "-",
             f"{numpy64 * 1e3:.1f} / {r['numpy float32'] * 1e3:.1f}"),
            (f"MLP 256×{width}: PyTorch CPU float64 / float32 (ms)", "-", f"{torch} / {torch32}"),
            (f"MLP 256×{width}: gradwalk Tracer + events() float32 (ms)", "-",
             f"{r['gradwalk trace float32'] * 1e3:.0f} "
             f"({r['gradwalk trace float32'] / r['numpy float32']:.1f} × numpy float32)"),
            *_randn_rows(width, r),
        ]
    s = stream.measure(10_000)
    rows += [
        (f"stream {s['nodes']:,} nodes: first event (ms)", "< 100",
         f"{s['first_event_s'] * 1e3:.0f} (POST {s['post_s'] * 1e3:.0f})"),
        (f"stream {s['nodes']:,} nodes: whole stream / POST", "≤ 1.5",
         f"{s['stream_s'] / s['post_s']:.2f} ({s['stream_s'] * 1e3:.0f} ms)"),
    ]
    f = stream.phases(10_000)
    rows.append((f"stream {s['nodes']:,} nodes: before the first event, in process: parse / "
                 "Tracer / graph event (ms)", "-",
                 f"{f['parse_s'] * 1e3:.0f} / {f['tracer_s'] * 1e3:.0f} / {f['graph_s'] * 1e3:.0f}"
                 f" (sum {sum(f.values()) * 1e3:.0f})"))
    c = cli.measure()
    rows.append(("CLI: `gradwalk trace` one line, wall (ms)", "< 300",
                 f"{c['cli_s'] * 1e3:.0f} (python alone {c['python_s'] * 1e3:.0f}, "
                 f"import numpy {c['numpy_s'] * 1e3:.0f})"))
    return _section(m, rows)


def _randn_rows(width: int, r: dict) -> list[tuple[str, str, str]]:
    """The MLP with weights from randn (bench/mlp.py randn_program), float64 and float32."""
    def ms(key: str) -> str:
        return "n/a" if r[key] is None else f"{r[key] * 1e3:.1f}"

    def against_numpy(way: str, d: str) -> str:
        """ms, and × numpy by hand, and × numpy drawing the same weights then by hand."""
        t, hand = r[f"gradwalk randn {way} {d}"], r[f"numpy randn {d}"]
        drawn = hand + r[f"numpy randn draw {d}"]
        return f"{t * 1e3:.0f} ({t / hand:.1f} × numpy; {t / drawn:.1f} × numpy with the draw)"

    trace = " / ".join(against_numpy("trace", d) for d in ("float64", "float32"))
    body = " / ".join(against_numpy("body", d) for d in ("float64", "float32"))
    return [
        (f"MLP 256×{width} randn weights: gradwalk Tracer + events() float64 / float32 (ms)",
         "≤ 1.2 × numpy at 1024" if width == 1024 else "-", trace),
        (f"MLP 256×{width} randn weights: gradwalk body (trace_json) float64 / float32 (ms)",
         "-", body),
        (f"MLP 256×{width} randn weights: numpy by hand float64 / float32 (ms; the draw "
         "apart)", "-", f"{ms('numpy randn float64')} / {ms('numpy randn float32')} (draw "
         f"{ms('numpy randn draw float64')} / {ms('numpy randn draw float32')})"),
        (f"MLP 256×{width} randn weights: PyTorch CPU float64 / float32 (ms)", "-",
         f"{ms('torch randn float64')} / {ms('torch randn float32')}"),
        (f"MLP 256×{width}: max relative |dW1 - numpy| literals f64 / f32, randn f64 / f32",
         "-", " / ".join(f"{r[k]:.1e}" for k in (
             "max rel dW1 float64", "max rel dW1 float32", "max rel dW1 randn float64",
             "max rel dW1 randn float32"))),
    ]


def _section(m: dict, rows: list[tuple[str, str, str]]) -> str:
    lines = [BEGIN, "",
             f"Measured {datetime.date.today().isoformat()} by `python -m bench.run` on "
             f"{m['cores']} cores ({m['cpu']}), BLAS {m['blas']}, {m['python']}, numpy "
             f"{m['numpy']}, PyTorch {m['torch']}; load average {m['load']} at the end "
             "(the machine is shared: CPU time, best of three, engines interleaved; the MLP on "
             "one thread in every library).", "",
             "| figure | target | measured |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines + ["", END])


def write(section: str) -> None:
    doc = DOC.read_text(encoding="utf-8")
    if BEGIN in doc and END in doc:
        doc = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: section, doc,
                     flags=re.S)
    else:
        doc = doc.rstrip("\n") + "\n\n" + section + "\n"
    DOC.write_text(doc, encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.run")
    parser.add_argument("--quick", action="store_true", help="1e4 nodes, widths 64 and 256")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    section = run(args.quick)
    print(section)
    if not args.no_write:
        write(section)


if __name__ == "__main__":
    main()
