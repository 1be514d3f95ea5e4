"""The example notebook runs from top to bottom, and shows tcplab's objects as tables."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "notebooks" / "quickstart.ipynb"

RUN = """
import json, sys
import nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=300, kernel_name="python3").execute()
outs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
print(json.dumps([o.get("data", {}).get("text/html", "") for o in outs]))
"""


def test_the_example_notebook_executes_and_displays_tables():
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    # In a process of its own: the kernel machinery's warnings are not the
    # suite's (which turns warnings into errors).
    out = subprocess.run([sys.executable, "-c", RUN, str(NOTEBOOK)], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    html = json.loads(out.stdout.strip().splitlines()[-1])
    assert any("<b>tcplab scenario</b> westwood-path" in h for h in html)
    assert any("<b>tcplab results</b>" in h and "<th>goodput Mb/s</th>" in h for h in html)
    assert any("goodput_bps_ci95_low" in h for h in html)  # the summary table
