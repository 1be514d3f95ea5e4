"""Every `tl.<name>` the docs write resolves after a bare `import tcplab as tl`.

Submodules among them (`tl.plot.cdf`, `tl.studies`) load on first use, so
`import tcplab` stays small.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: `tl.` and a dotted name: `tl.plot.cdf(...)`, `tl.presets.westwood`, `tl.Network()`.
NAME = re.compile(r"(?<![\w.])tl\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")
#: Named by issue 52 besides the docs.
ALSO = {"studies", "plot", "validation"}

RESOLVE = """
import json, sys
import tcplab as tl
failed = []
for name in json.loads(sys.argv[1]):
    obj = tl
    try:
        for part in name.split("."):
            obj = getattr(obj, part)
    except AttributeError as e:
        failed.append(f"tl.{name}: {e}")
print(json.dumps(failed))
"""

LOADED = """
import json, sys
import tcplab as tl
before = sorted(m for m in sys.modules if m.startswith("tcplab.") or m == "matplotlib")
plot = tl.plot
print(json.dumps({"before": before, "same": plot is sys.modules["tcplab.plot"],
                  "studies": tl.studies is sys.modules["tcplab.studies"],
                  "dir": "plot" in dir(tl), "missing": hasattr(tl, "no_such_module")}))
"""


def doc_names() -> dict[str, str]:
    """Each dotted name the docs write after `tl.`, with a file that writes it."""
    found: dict[str, str] = {}
    for doc in DOCS:
        for name in NAME.findall(doc.read_text(encoding="utf-8")):
            found.setdefault(name, doc.relative_to(ROOT).as_posix())
    return found


def test_every_tl_name_in_the_readme_and_docs_resolves_in_a_fresh_process():
    names = doc_names()
    assert names.get("plot.cdf") == "docs/workloads.md"  # the scan sees what it must
    wanted = sorted(set(names) | ALSO)
    r = subprocess.run([sys.executable, "-c", RESOLVE, json.dumps(wanted)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    failed = json.loads(r.stdout)
    assert failed == [], [f"{f} (written in {names.get(f[3:].split(':')[0], 'issue 52')})"
                          for f in failed]


def test_submodules_load_on_first_use_not_with_import_tcplab():
    r = subprocess.run([sys.executable, "-c", LOADED], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    # Neither the submodules nor matplotlib come with `import tcplab`.
    assert not {"tcplab.plot", "tcplab.studies", "tcplab.validation", "tcplab.sweep",
                "matplotlib"} & set(got["before"]), got["before"]
    assert got["same"] and got["studies"] and got["dir"]
    assert got["missing"] is False  # an unknown name is still an AttributeError
