"""Sweeps over tables: labels instead of pooled or unhashable values, every stored table,
Python controllers' arguments and copies, and stores that are not tcplab's, damaged or
read-only."""

import contextlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
import tcplab as tl
from tcplab.analysis import fairness, summarize
from tcplab.errors import ScenarioError, StoreError
from tcplab.labels import cc_label, label
from tcplab.store import APPLICATION_ID, Store
from tcplab.sweep import EXEC_LOG_ENV, Sweep, load_study

CONTROLLER = textwrap.dedent("""
    import tcplab as tl


    class Aimd(tl.CongestionControl):
        def __init__(self, gain=1):
            self.gain = gain
            self.acks = 0

        def on_ack(self, tcb, ack):
            self.acks += 1
            if tcb.cwnd < tcb.ssthresh:
                tcb.cwnd += min(ack.bytes_acked, tcb.mss)
                return
            tcb.cwnd += max(1, self.gain * tcb.mss * tcb.mss // tcb.cwnd)


    class Plain(tl.CongestionControl):
        def on_ack(self, tcb, ack):
            tcb.cwnd += max(1, tcb.mss * tcb.mss // tcb.cwnd)
""")

STUDY = textwrap.dedent("""
    name = "tables"
    seeds = 2

    [scenario]
    duration = "4s"
    hosts = ["a", "b"]
    routers = ["r"]

    [[scenario.links]]
    a = "a"
    b = "r"
    rate = "10Mbps"
    delay = "10ms"

    [[scenario.links]]
    name = "bn"
    a = "r"
    b = "b"
    rate = "2Mbps"
    delay = "10ms"
    loss = { model = "uniform", per = 0.01 }

    [[scenario.flows]]
    kind = "tcp"
    name = "t0"
    src = "a"
    dst = "b"

    [[scenario.flows]]
    kind = "tcp"
    name = "t1"
    src = "a"
    dst = "b"
    cc = "cubic"

    [grid]
    "links.bn.queue" = [{ kind = "red", min_th = 5, max_th = 15 }, { kind = "codel" }]
    "flows.t0.cc" = [{ name = "python", class = "tablescc:Aimd", gain = 1 },
                     { name = "python", class = "tablescc:Aimd", gain = 4 }]
""")


@pytest.fixture
def study(tmp_path, monkeypatch):
    """The study file above with its controller module beside it, importable."""
    (tmp_path / "tablescc.py").write_text(CONTROLLER)
    p = tmp_path / "tables.toml"
    p.write_text(STUDY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return p


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tcplab.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def test_labels_name_the_kind_and_every_parameter_set():
    assert label({"kind": "red", "min_th": 20, "max_th": 60}) == "red(min_th=20,max_th=60)"
    assert label({"kind": "codel"}) == "codel"
    assert label({"name": "python", "class": "m:Aimd", "gain": 2, "source": "ab12"}) \
        == "python:m.Aimd(gain=2)"
    assert label({"name": "python", "class": "m:Aimd"}) == "python:m.Aimd"
    assert label({"name": "cubic", "beta": 0.8, "fast_convergence": False}) \
        == "cubic(beta=0.8,fast_convergence=false)"
    assert label({"model": "gilbert_elliott"}) != label({"model": "uniform"})
    assert label([1, {"kind": "pie"}]) == "[1,pie]"
    assert label(0.01) == 0.01 and label("newreno") == "newreno"  # scalars stay as they are
    # A resolved variant table: the profile's defaults are left out.
    assert cc_label({"name": "newreno", "halve": "flightsize"}, "paper") == "newreno"
    assert cc_label({"name": "newreno", "halve": "pipe"}, "paper") == "newreno(halve=pipe)"
    assert cc_label({"name": "newreno", "halve": "pipe"}, "ns3") == "newreno"


def test_table_valued_grid_axes_are_grouped_by_their_labels(study):
    sweep = load_study(study)
    flows = sweep.run(jobs=2, progress=False)
    assert set(flows["queue"]) == {"red(max_th=15,min_th=5)", "codel"}
    # Two gains of one Python controller are two algorithms, never one pooled "python".
    t0 = flows[flows["flow"] == "t0"]
    assert set(t0["cc"]) == {"python:tablescc.Aimd(gain=1)", "python:tablescc.Aimd(gain=4)"}
    assert set(flows.loc[flows["flow"] == "t1", "cc"]) == {"cubic"}
    table = summarize(flows, ["queue", "cc"], ["goodput_bps"])
    assert len(table) == 6 and set(table["goodput_bps_count"]) == {2, 4}
    assert len(fairness(flows, ["queue", "flows.t0.cc"])) == 8
    # A larger gain grows faster: the two configurations really differ.
    by_cc = t0.groupby("cc")["goodput_bps"].mean()
    assert by_cc["python:tablescc.Aimd(gain=4)"] != by_cc["python:tablescc.Aimd(gain=1)"]

    r = cli("results", sweep.db, "--group-by", "queue,cc")
    assert r.returncode == 0, r.stderr
    assert "python:tablescc.Aimd(gain=4)" in r.stdout and "red(max_th=15,min_th=5)" in r.stdout
    out = study.parent / "g.png"
    r = cli("plot", sweep.db, "--x", "queue", "--y", "goodput", "--hue", "cc", "--out", out)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 1000


def test_every_stored_table_is_read_with_its_grid_columns(study):
    sweep = load_study(study)
    sweep.run(jobs=2, progress=False)
    links = sweep.results("links")
    # 2 links x 2 directions per run, 8 runs.
    assert len(links) == 32 and {"queue", "flows.t0.cc", "seed", "key"} <= set(links.columns)
    bn = links[(links["link"] == "bn") & (links["src"] == "r")]
    codel = bn[bn["queue"] == "codel"]
    red = bn[bn["queue"] == "red(max_th=15,min_th=5)"]
    assert (codel["drops_aqm"] + red["drops_aqm"].sum() > 0).all()
    assert ((bn["utilization"] > 0.3) & (bn["utilization"] <= 1)).all()
    with Store(sweep.db) as store:
        assert len(store.links()) == 32
    with pytest.raises(ValueError, match="allowed: flows, links, intervals, transfers"):
        sweep.results("drops")
    r = cli("results", sweep.db, "--table", "links", "--group-by", "queue,link,src",
            "--metrics", "drops_aqm")
    assert r.returncode == 0, r.stderr
    assert "drops_aqm_mean" in r.stdout and "codel" in r.stdout


def test_transfers_are_stored_whatever_metrics_are_kept(tmp_path):
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="1Gbps", delay="1ms")
    net.link(r, b, rate="100Mbps", delay="1ms")
    net.tcp(a, b, cc="cubic", name="web",
            app=tl.Poisson(sizes="websearch", arrival_rate=20, until="2s"))
    sweep = Sweep(net.scenario(duration="4s"), grid={"flows.web.cc": ["cubic", "newreno"]},
                  seeds=[1, 2], db=tmp_path / "w.db", metrics=["goodput_bps"])
    flows = sweep.run(jobs=2, progress=False)
    assert "completion_time_s" not in flows.columns  # the kept metrics only
    tr = sweep.results("transfers")
    assert len(tr) > 20 and tr["transfer_bytes"].gt(0).all()
    assert {"completion_time_s", "slowdown", "cc", "seed"} <= set(tr.columns)
    done = tr.dropna(subset=["completion_time_s"])
    assert (done["completion_time_s"] > 0).all() and (done["slowdown"] >= 1).all()
    # The CLI summarises per run first: one value per seed, not one per transfer.
    r = cli("results", sweep.db, "--table", "transfers", "--group-by", "cc",
            "--metrics", "slowdown")
    assert r.returncode == 0, r.stderr
    assert "averaged first" in r.stderr
    rows = [line.split() for line in r.stdout.splitlines()[1:3]]
    counts = {row[0]: row[5] for row in rows}
    assert counts == {"cubic": "2", "newreno": "2"}


def test_unknown_arguments_of_a_python_controller_are_refused(tmp_path, monkeypatch):
    (tmp_path / "argcc.py").write_text(CONTROLLER)
    monkeypatch.syspath_prepend(str(tmp_path))
    import argcc

    with pytest.raises(TypeError, match="Plain takes no arguments.*gain"):
        argcc.Plain(gain=2)
    sc = tmp_path / "s.toml"
    base = ('duration = "1s"\nhosts = ["a", "b"]\nlinks = [{ a = "a", b = "b", rate = '
            '"10Mbps", delay = "1ms" }]\nflows = [{ kind = "tcp", src = "a", dst = "b", cc = ')
    for cc, field, message in (
            ('{ name = "python", class = "argcc:Plain", gain = 2 }', "gain",
             "argcc:Plain takes no arguments"),
            ('{ name = "python", class = "argcc:Aimd", gian = 2 }', "gian",
             "argcc:Aimd takes no argument 'gian' (allowed: gain)")):
        sc.write_text(base + cc + " }]\n")
        with pytest.raises(ScenarioError, match=re.escape(message)) as e:
            tl.load(sc).run()
        assert e.value.path == f"flows[0].cc.{field}"
        r = cli("run", sc, cwd=tmp_path)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_one_controller_object_for_two_flows_is_copied_per_flow(tmp_path, monkeypatch):
    (tmp_path / "forkcc.py").write_text(CONTROLLER)
    monkeypatch.syspath_prepend(str(tmp_path))
    import forkcc

    def run(first, second):
        net = tl.Network()
        a, r = net.host("a"), net.router("r")
        b, c = net.host("b"), net.host("c")
        net.link(a, r, rate="10Mbps", delay="5ms")
        net.link(r, b, rate="2Mbps", delay="5ms", loss=tl.Uniform(0.01))
        net.link(r, c, rate="4Mbps", delay="20ms", loss=tl.Uniform(0.01))
        net.tcp(a, b, cc=first)
        net.tcp(a, c, cc=second)
        return net.run(duration="10s", seed=3).flows

    shared = forkcc.Aimd(gain=2)
    apart = run(forkcc.Aimd(gain=2), forkcc.Aimd(gain=2))
    together = run(shared, shared)
    cols = ["sent_packets", "delivered_packets", "goodput_bps", "timeouts"]
    assert together[cols].equals(apart[cols])
    assert shared.acks == 0  # the object given is the prototype; each flow ran a copy
    alone = forkcc.Aimd(gain=2)
    run(alone, forkcc.Aimd(gain=1))
    assert alone.acks > 100  # an object given to one flow is that flow's (readable after)


def test_a_foreign_sqlite_file_is_never_written(tmp_path, study):
    other = tmp_path / "app.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE users (id INTEGER, name TEXT)")
    conn.execute("INSERT INTO users VALUES (1, 'ada')")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    r = cli("sweep", study, "--db", other, "--jobs", "1")
    assert r.returncode == 2, r.stderr
    assert str(other) in r.stderr and "not a tcplab results store" in r.stderr
    assert other.read_bytes() == before and not Path(f"{other}-wal").exists()
    with pytest.raises(StoreError, match="another application"):
        Store(other)
    marked = tmp_path / "marked.db"
    conn = sqlite3.connect(marked)
    conn.execute("PRAGMA application_id = 1234")
    conn.execute("CREATE TABLE runs (key TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="application id 0x4d2"):
        Store(marked, write=True)


def test_stores_are_marked_and_unmarked_ones_are_adopted(tmp_path):
    db = tmp_path / "s.db"
    with Store(db, write=True):
        pass
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    # A store written before stores were marked: its tables alone.
    conn.execute("PRAGMA application_id = 0")
    conn.execute("PRAGMA user_version = 0")
    conn.commit()
    conn.close()
    with Store(db) as s:
        assert s.studies() == []
    with Store(db, write=True):
        pass
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer tcplab"):
        Store(db)


@contextlib.contextmanager
def unwritable(folder: Path):
    """The folder made unwritable, even for root (chattr +i), then writable again."""
    if os.geteuid() == 0:
        r = subprocess.run(["chattr", "+i", str(folder)], capture_output=True)
        if r.returncode != 0:
            pytest.skip(f"chattr +i is not available here: {r.stderr.decode().strip()}")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
    else:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)


def test_a_store_in_a_folder_you_cannot_write_is_read(study):
    sweep = load_study(study)
    flows = sweep.run(jobs=2, progress=False)
    db = Path(sweep.db)
    folder = Path(tempfile.mkdtemp(dir=db.parent))
    ro = folder / db.name
    ro.write_bytes(db.read_bytes())
    # A sweep leaves its store out of WAL mode, so that it needs no side files.
    conn = sqlite3.connect(ro)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.execute("PRAGMA journal_mode=WAL")  # as one copied while a sweep was writing it
    conn.close()
    with unwritable(folder):
        r = cli("results", ro, "--group-by", "queue")
        assert r.returncode == 0, r.stderr
        with Store(ro) as store:
            assert len(store.flows()) == len(flows)
    assert sorted(p.name for p in folder.iterdir()) == [db.name]


def test_a_damaged_row_is_named_skipped_and_recomputed(study, tmp_path, monkeypatch):
    sweep = load_study(study)
    sweep.run(jobs=2, progress=False)
    conn = sqlite3.connect(sweep.db)
    key = conn.execute("SELECT key FROM runs ORDER BY key LIMIT 1").fetchone()[0]
    conn.execute("UPDATE runs SET results = substr(results, 1, 100) WHERE key = ?", (key,))
    conn.commit()
    conn.close()
    with Store(sweep.db) as store, pytest.warns(UserWarning, match=f"{sweep.db}: run {key}"):
        flows = store.flows()
    assert len(flows) == 14 and key not in set(flows["key"])
    r = cli("results", sweep.db)
    assert r.returncode == 0 and f"run {key} is damaged" in r.stderr
    log = tmp_path / "exec.log"
    monkeypatch.setenv(EXEC_LOG_ENV, str(log))
    flows = sweep.run(jobs=1, progress=False)
    assert log.read_text().split() == [key] and len(flows) == 16
    with Store(sweep.db) as store:
        assert store.damaged() == []


def test_nan_in_results_is_not_damage(tmp_path):
    db = tmp_path / "n.db"
    with Store(db, write=True) as s:
        s.put(key="k", study="x", params={"q": {"kind": "red"}}, seed=1, status="ok",
              scenario={}, results={"flows": [{"flow": "f", "slowdown": float("nan")}]})
        assert s.damaged() == []
        assert json.loads(s._query("SELECT params FROM runs")[0][0]) == {"q": {"kind": "red"}}
        assert s.flows(keys={"k"})["q"].tolist() == ["red"]


def test_the_cli_offers_every_table_of_a_store():
    from tcplab.cli_store import _TABLE_DEFAULTS
    from tcplab.store import TABLES

    assert list(TABLES) == list(_TABLE_DEFAULTS)


def test_each_flow_row_gets_the_label_of_its_own_entry():
    import json

    from tcplab import _core
    from tcplab.labels import relabel_cc

    net = tl.Network()
    s = net.hosts(["s0", "s1"])
    r, b = net.router("r"), net.host("b")
    net.link(s, r, rate="100Mbps", delay="1ms")
    net.link(r, b, rate="10Mbps", delay="1ms")
    net.tcp(s, b, cc=tl.Cubic(beta=0.8))                    # an unnamed group: tcp0, tcp1
    net.tcp(s[0], b, cc="newreno")                           # the profile's defaults
    net.tcp(s[0], b, cc=tl.Cubic(beta=0.6), name="web",
            app=tl.Poisson(sizes="websearch", arrival_rate=20, until="1s"))
    net.tcp(s, b, cc=tl.Cubic(beta=0.9), name=["x", "y"])
    sc = net.scenario(duration="2s")
    resolved = json.loads(_core.check_json(sc.data, None))
    rows = sc.run().raw["flows"]
    relabel_cc(rows, resolved)
    got = {r["flow"]: r["cc"] for r in rows}
    assert got["tcp0"] == got["tcp1"] == "cubic(beta=0.8)"
    assert got["tcp2"] == "newreno"
    web = [v for k, v in got.items() if k.startswith("web")]
    assert len(web) > 5 and set(web) == {"cubic(beta=0.6)"}
    assert got["x"] == got["y"] == "cubic(beta=0.9)"
