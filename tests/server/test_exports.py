"""File exports: `gradwalk export` and POST /api/export/{format} (server/exports.py,
server/export_html.py). The browser side of the standalone page is tests/e2e/test_standalone.py."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from helpers import case
from gradwalk.server.export_html import assemble, page_state
from gradwalk.server.main import create_app

FANOUT = case("seed-tanh-fanout")["program"]


def gradwalk(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradwalk.server.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def data_block(html: str, element_id: str):
    m = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


# ---------------------------------------------------------------- the command line


def test_cli_markdown_to_stdout():
    r = gradwalk("export", "-", "--format", "md", stdin=FANOUT)
    assert r.returncode == 0, r.stderr
    assert "| e = a \\* b  | b = -0.5 for a, a = 1 for b   | 1.5729" in r.stdout
    assert r.stdout.endswith("- dL/dc = 0.4621\n")


def test_cli_latex_to_a_file(tmp_path):
    src = tmp_path / "prog.py"
    src.write_text(FANOUT)
    out = tmp_path / "table.tex"
    r = gradwalk("export", str(src), "--format", "tex", "-o", str(out))
    assert r.returncode == 0 and r.stdout == ""
    tex = out.read_text()
    assert tex.count("\\toprule") == tex.count("\\midrule") == tex.count("\\bottomrule") == 1
    assert tex.startswith("% The backward pass") and tex.endswith("\\end{document}\n")
    assert (r"$e = a \cdot b$ & $b = -0.5$ for $a$, $a = 1$ for $b$ & $1.5729$ & "
            r"$\frac{\partial L}{\partial a} \mathrel{{+}{=}} -0.7864$, "
            r"$\frac{\partial L}{\partial b} \mathrel{{+}{=}} 1.5729$ \\") in tex


def test_cli_json_is_the_trace_body():
    api = TestClient(create_app()).post("/api/trace", json={"program": FANOUT})
    r = gradwalk("export", "-", "--format", "json", stdin=FANOUT)
    assert r.returncode == 0 and r.stdout == api.text + "\n"


def test_cli_html_holds_program_trace_and_no_server_reference():
    r = gradwalk("export", "-", "--format", "html", "--output", "L", stdin=FANOUT)
    assert r.returncode == 0, r.stderr
    html = r.stdout
    state = data_block(html, "initial-state")
    assert state == {"v": 1, "program": FANOUT, "output": "L"}
    assert data_block(html, "initial-trace")["grads"]["a"] == pytest.approx(0.7864477329659274)
    assert '<main id="embed"' in html
    # Every script and stylesheet is inside: nothing points back at a server.
    assert not re.search(r'(src|href)="/(static|api)', html)
    assert "sourceMappingURL" not in html
    assert html.count("<style>") >= 2 and '<script type="module">' in html


def test_cli_program_error_exits_1_with_line_and_column():
    r = gradwalk("export", "-", "--format", "md", stdin="a = 1.0\nb = a +* 2\n")
    assert r.returncode == 1 and r.stdout == ""
    assert "line 2, column 8" in r.stderr


def test_cli_unwritable_output(tmp_path):
    r = gradwalk("export", "-", "--format", "md", "-o", str(tmp_path / "no" / "dir.md"), stdin=FANOUT)
    assert r.returncode == 4 and "cannot write" in r.stderr and "Traceback" not in r.stderr


def test_cli_needs_a_format():
    r = gradwalk("export", "-", stdin=FANOUT)
    assert r.returncode == 2 and "--format" in r.stderr


# ---------------------------------------------------------------- the HTTP route


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:
        yield c


def test_api_markdown_attachment(client):
    r = client.post("/api/export/md", json={"program": FANOUT})
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/markdown; charset=utf-8"
    assert r.headers["content-disposition"] == 'attachment; filename="gradwalk-walk.md"'
    assert "dL/da += -0.7864" in r.text


def test_api_html_keeps_only_view_fields_of_the_state(client):
    state = {"v": 1, "step": 9, "theme": "projector", "font": 1.5, "hide_program": True,
             "program": "something else", "evil": "<script>", "step2": 3, "speed": True}
    r = client.post("/api/export/html", json={"program": FANOUT, "output": "L", "state": state})
    assert r.status_code == 200 and r.headers["content-type"] == "text/html; charset=utf-8"
    assert r.headers["content-disposition"] == 'attachment; filename="gradwalk-L.html"'
    assert data_block(r.text, "initial-state") == {
        "v": 1, "step": 9, "theme": "projector", "font": 1.5, "hide_program": True,
        "program": FANOUT, "output": "L"}


def test_api_program_error_is_422_with_position(client):
    r = client.post("/api/export/tex", json={"program": "a = 1.0\nb = a +* 2\n"})
    assert r.status_code == 422 and r.json()["error"]["line"] == 2


def test_api_unknown_format(client):
    r = client.post("/api/export/pdf", json={"program": FANOUT})
    assert r.status_code == 422 and r.json()["error"]["kind"] == "bad_request"


# ---------------------------------------------------------------- inlining


def test_data_blocks_cannot_end_their_element():
    body = json.dumps({"x": "</script><script>alert(1)</script><!--"}).encode()
    html = assemble(body, page_state("# </script>\nx = 1.0\n", None))
    assert html.count("</script>") == html.count("<script")
    assert data_block(html, "initial-trace") == {"x": "</script><script>alert(1)</script><!--"}
    assert data_block(html, "initial-state")["program"] == "# </script>\nx = 1.0\n"
