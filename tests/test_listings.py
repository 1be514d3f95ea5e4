"""Every list of profiles and variants says the same: the core's, tl.schema(), tl.variants(),
`tcplab variants`, docs/reference.md and the Python classes and exports."""

import inspect
import subprocess
import sys
from pathlib import Path

import tcplab as tl
from tcplab import cc, cc_linux
from tcplab.schema import tcp_fields

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ["paper", "linux", "ns3", "ns2", "inet"]


def variant_classes():
    out = {}
    for module in (cc, cc_linux):
        for _, c in inspect.getmembers(module, inspect.isclass):
            if issubclass(c, cc.Variant) and c.name:
                out[c.name] = c
    return out


def test_every_profile_is_in_every_listing():
    s = tl.schema()
    assert s["profiles"] == PROFILES
    assert sorted(s["tcp_defaults"]) == sorted(PROFILES)
    assert all(s["tcp_defaults"][p] for p in PROFILES)  # each resolves a flow
    for v in s["variants"]:
        assert sorted(v["defaults"]) == sorted(PROFILES), v["name"]
    for v in tl.variants():
        assert sorted(v["defaults"]) == sorted(PROFILES), v["name"]
    # The inet profile's own defaults reach the reference (INET's 536-B MSS).
    reference = (ROOT / "docs" / "reference.md").read_text()
    assert "(inet)" in reference and "(ns2)" in reference


def test_every_variant_is_in_every_listing():
    names = [v["name"] for v in tl.schema()["variants"]]
    assert len(names) == len(set(names)) >= 23
    assert [v["name"] for v in tl.variants()] == names
    out = subprocess.run([sys.executable, "-m", "tcplab.cli", "variants"], capture_output=True,
                         text=True, check=True).stdout
    listed = [line.split()[0] for line in out.splitlines() if line and not line[0].isspace()]
    assert listed == names
    reference = (ROOT / "docs" / "reference.md").read_text()
    assert all(f"| `{n}` |" in reference for n in names)
    # Each variant has its Python class, exported from tcplab and loadable lazily.
    classes = variant_classes()
    assert sorted(classes) == sorted(names)
    for c in classes.values():
        assert c.__name__ in tl.__all__ and getattr(tl, c.__name__) is c


def test_every_export_resolves_and_star_import_works():
    code = ("import tcplab\nfrom tcplab import *\n"
            "missing = [n for n in tcplab.__all__ if n not in globals()]\n"
            "print('MISSING', missing)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "MISSING []" in out


def cli(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "tcplab.cli", *args], capture_output=True,
                          text=True, check=True).stdout


def test_every_profile_and_variant_is_in_the_profile_table_s_listings():
    """The profile table (tl.schema()["profile_defaults"]) reaches every listing: tl.schema(),
    tl.variants(), `tcplab variants` (and --profiles), its help and docs/reference.md."""
    s = tl.schema()
    table = s["profile_defaults"]
    columns = [c["name"] for c in table["columns"]]
    assert [c for c in columns if c != "ns3 3.18"] == PROFILES
    variants = [v["name"] for v in s["variants"]]
    for listing in (s["variants"], tl.variants()):
        for v in listing:
            assert sorted(v["defaults"]) == sorted(PROFILES), v["name"]
            assert sorted(v["recoveries"]) == sorted(columns), v["name"]
    help_text = " ".join(cli("variants", "--help").split())
    profiles_out = cli("variants", "--profiles")
    listed_profiles = {line.split()[0] for line in profiles_out.splitlines()
                       if line.startswith("    ")}
    reference = (ROOT / "docs" / "reference.md").read_text()
    for p in PROFILES:
        assert f"{p}:" in help_text, p
        assert p in listed_profiles, p
        assert f"| `{p}` |" in reference and f"| {p} |" in reference, p
    assert "ns3 3.18:" in help_text and "| ns3 3.18 |" in reference
    for n in variants:
        assert n in help_text.split("Profiles:")[0], n
    # Each setting with its source, in the reference and in --profiles.
    for r in table["rows"]:
        assert f"| `{r['field']}`" in reference, r["field"]
        assert f"\n{r['field']}" in profiles_out, r["field"]
        for d in r["defaults"].values():
            assert f"[{d['source']}]" in profiles_out


def test_every_row_of_the_profile_table_names_a_source_for_every_profile():
    table = tl.schema()["profile_defaults"]
    assert len(table["rows"]) >= 30
    for r in table["rows"]:
        assert set(PROFILES) <= set(r["defaults"]), r["field"]
        for profile, d in r["defaults"].items():
            assert d["source"].strip(), (r["field"], profile)
    # Every TCP option but the ones that choose a column (cc, profile, ns3_release) and the
    # application has its row.
    rows = {r["field"] for r in table["rows"]}
    assert rows == set(tcp_fields()) - {"cc", "profile", "ns3_release", "app"}
