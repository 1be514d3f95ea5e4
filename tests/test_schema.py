"""One source of truth: the Python lists and the docs tables agree with the core's metadata."""

import inspect
import subprocess
import sys
from pathlib import Path

import tcplab as tl
from tcplab import cc as ccmod
from tcplab import cc_linux
from tcplab.schema import columns, tcp_fields
from tcplab.sweep import RESULT_COLUMNS

ROOT = Path(__file__).resolve().parent.parent

# Network.tcp's own arguments that are not options of the flow's table, and
# the flow's fields it takes through other arguments (app= holds start/stop).
_NOT_OPTIONS = {"self", "src", "dst", "name", "app"}


def test_network_tcp_takes_exactly_the_tcp_options_of_the_core():
    params = set(inspect.signature(tl.Network.tcp).parameters) - _NOT_OPTIONS
    assert params == set(tcp_fields()) - {"app"}


def test_network_udp_and_link_take_exactly_their_fields():
    s = tl.schema()
    udp = {f["path"].split(".", 1)[1] for f in s["fields"] if f["path"].startswith("flows[udp].")}
    common = {"start", "stop"}
    params = set(inspect.signature(tl.Network.udp).parameters) - {"self", "src", "dst", "name"}
    assert params == udp | common
    link = {f["path"].split(".", 1)[1] for f in s["fields"]
            if f["path"].startswith("links[].") and f["path"].count(".") == 1}
    params = set(inspect.signature(tl.Network.link).parameters) - {"self"}
    assert params == link


def test_every_variant_class_takes_exactly_its_variants_parameters():
    s = {v["name"]: v for v in tl.schema()["variants"]}
    classes = [c for m in (ccmod, cc_linux) for c in vars(m).values()
               if isinstance(c, type) and issubclass(c, tl.Variant) and c.name]
    assert {c.name for c in classes} == {n for n in s if s[n]["defaults"]["paper"]}
    for c in classes:
        params = set(inspect.signature(c.__init__).parameters) - {"self"}
        forms = [set(f["defaults"]) for f in s[c.name]["forms"]]
        assert params == set(s[c.name]["defaults"]["paper"]).union(*forms), c.name
    assert [(f["key"], f["value"]) for f in s["cubic"]["forms"]] == [("version", "2.6.22"),
                                                                      ("version", "linux")]
    assert [(f["key"], f["value"]) for f in s["westwoodplus"]["forms"]] == [("version", "2.6.22")]


def test_result_tables_have_the_columns_the_core_lists_in_its_order():
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="1Mbps", delay="1ms")
    net.tcp(a, b)
    res = net.run(duration="1s")
    assert list(res.flows.columns) == [c["name"] for c in columns("flows")]
    assert list(res.links.columns) == [c["name"] for c in columns("links")]
    assert {c["name"] for c in columns("flows")} <= RESULT_COLUMNS
    assert "dupacks" in RESULT_COLUMNS


def test_the_reference_tables_in_docs_are_generated_from_the_current_core():
    r = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_reference.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_docs_tcp_md_explains_every_tcp_option():
    text = (ROOT / "docs" / "tcp.md").read_text()
    missing = [f for f in tcp_fields() if f"`{f}`" not in text]
    assert missing == []
