"""Scenario files that name code: check never imports it; run imports what the file names."""

import subprocess
import sys
import textwrap

import tcplab as tl

SCENARIO = textwrap.dedent("""
    duration = "1s"
    hosts = ["a", "b"]
    trace = ["cc:acks"]
    links = [{ a = "a", b = "b", rate = "10Mbps", delay = "1ms" }]
    flows = [{ kind = "tcp", src = "a", dst = "b", cc = { name = "python", class = "%s" } }]
""")

MODULE = textwrap.dedent("""
    import pathlib

    import tcplab as tl

    pathlib.Path(__file__).with_name("imported.marker").write_text("ran")


    class Cc(tl.CongestionControl):
        probes = {"acks": ("ACKs", "ACKs seen")}

        def on_ack(self, tcb, ack):
            tcb.cwnd += max(1, tcb.mss * tcb.mss // tcb.cwnd)
""")


def cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "tcplab.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def test_check_never_imports_a_module_a_scenario_names(tmp_path):
    (tmp_path / "sidecc.py").write_text(MODULE)
    sc = tmp_path / "s.toml"
    sc.write_text(SCENARIO % "sidecc:Cc")
    r = cli("check", sc, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert '"class": "sidecc:Cc"' in r.stdout
    assert not (tmp_path / "imported.marker").exists()
    tl.load(sc).check()  # the Python API neither
    assert not (tmp_path / "imported.marker").exists()
    # The standard library's `this` prints the Zen of Python when imported.
    sc.write_text(SCENARIO % "this:X")
    r = cli("check", sc, cwd=tmp_path)
    assert r.returncode == 0 and "Beautiful is better" not in r.stdout + r.stderr
    # A malformed class path is still refused, naming the field.
    sc.write_text(SCENARIO % "nocolon")
    r = cli("check", sc, cwd=tmp_path)
    assert r.returncode == 2 and "flows[0].cc.class" in r.stderr
    # Running the file imports the class it names (documented: files run code).
    sc.write_text(SCENARIO % "sidecc:Cc")
    r = cli("run", sc, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "imported.marker").read_text() == "ran"
