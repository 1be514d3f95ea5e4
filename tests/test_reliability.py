"""Nothing hangs, nothing aborts, no traceback: stopping, memory, malformed input, files."""

import decimal
import fractions
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import tcplab as tl

ROOT = Path(__file__).resolve().parent.parent


def two_hosts(**link) -> tl.Network:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, **{"rate": "10Mbps", "delay": "1ms", **link})
    return net


# ---- stopping a single run --------------------------------------------------------

INTERRUPT = """
import os, signal, threading, time
import tcplab as tl

# A test runner in the background may start this with SIGINT ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)

class Aimd(tl.CongestionControl):
    def on_ack(self, tcb, ack):
        tcb.cwnd += max(1, tcb.mss * tcb.mss // tcb.cwnd)

net = tl.Network()
a, b = net.host("a"), net.host("b")
net.link(a, b, rate="100Mbps", delay="1ms")
if {python_cc}:
    net.tcp(a, b, cc=Aimd())
else:
    net.udp(a, b, rate="50Mbps", size="1000B")
sent = []
def interrupt():
    sent.append(time.perf_counter())
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(0.5, interrupt).start()
try:
    net.run(duration="1000000s")
    print("FINISHED")
except KeyboardInterrupt:
    print("STOPPED", time.perf_counter() - sent[0])
"""


@pytest.mark.parametrize("python_cc", [False, True], ids=["builtin", "python-cc"])
def test_ctrl_c_stops_a_single_run_within_a_fraction_of_a_second(python_cc):
    # Without the signal check the run would go on for hours (a 50 Mb/s UDP
    # source for a million simulated seconds).
    r = subprocess.run([sys.executable, "-c", INTERRUPT.format(python_cc=python_cc)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    word, *rest = r.stdout.split()
    assert word == "STOPPED", r.stdout
    assert float(rest[0]) < 0.2 + 0.1  # the 0.2 s, with slack for a busy machine


def test_a_signal_handler_of_the_users_ends_the_run_with_its_own_exception():
    code = textwrap.dedent("""
        import signal
        import tcplab as tl
        class Budget(Exception):
            pass
        def alarm(*_):
            raise Budget("wall-clock budget spent")
        signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        net = tl.Network()
        a, b = net.host("a"), net.host("b")
        net.link(a, b, rate="100Mbps", delay="1ms")
        net.udp(a, b, rate="50Mbps")
        try:
            net.run(duration="1000000s")
        except Budget as e:
            print("RAISED", e)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "RAISED wall-clock budget spent", r.stderr


# ---- memory --------------------------------------------------------------------------


def test_an_interval_of_one_nanosecond_is_refused_before_the_run_naming_interval():
    net = two_hosts()
    net.udp("a", "b", rate="1Mbps")
    with pytest.raises(tl.ScenarioError) as e:
        net.run(duration="10s", interval="1ns")
    assert e.value.path == "interval"
    assert "10,000,000,000 per-interval rows" in str(e.value)
    assert "over the memory budget of 4 GiB" in str(e.value)


def test_a_delay_of_centuries_is_refused_naming_the_link_delay():
    net = two_hosts(delay="300000000s")  # about 9.5 years... per packet
    net.udp("a", "b", rate="50Mbps")
    with pytest.raises(tl.ScenarioError) as e:
        net.run(duration="1000000s")
    assert e.value.path == "links[0].delay"
    assert "UDP packets in flight" in str(e.value)
    # The same run, short enough to hold what it sends, is accepted.
    assert net.run(duration="2s").flows.iloc[0]["delivered_packets"] == 0


def test_a_device_queue_counts_in_the_estimate_of_udp_packets_held():
    # 50 Mb/s into 10 Mb/s: PIE's 10 packets hold little, a device queue of
    # 100,000 below it (and 100 s of sending to fill it) does not fit 1 MiB.
    net = two_hosts(queue={"kind": "pie", "limit": "10p", "device_queue": 100000})
    net.udp("a", "b", rate="50Mbps")
    with pytest.raises(tl.ScenarioError) as e:
        net.run(duration="100s", memory_budget="1MiB")
    assert e.value.path == "links[0].queue"
    assert "above a device queue of 100000 packets" in str(e.value)
    net = two_hosts(queue={"kind": "pie", "limit": "10p"})
    net.udp("a", "b", rate="50Mbps")
    assert net.scenario(duration="100s", memory_budget="1MiB").check()


def test_the_budget_is_a_fixed_default_and_settable_per_run():
    net = two_hosts(delay="300000000s")
    net.udp("a", "b", rate="50Mbps")
    assert net.scenario(duration="2s").check()["memory_budget"] == "4294967296B"
    with pytest.raises(tl.ScenarioError, match="memory budget of 1 MiB"):
        net.run(duration="10s", memory_budget="1MiB")
    with pytest.raises(tl.ScenarioError) as e:
        net.run(duration="2s", memory_budget="1KiB")
    assert e.value.path == "memory_budget" and "too small" in str(e.value)


def test_a_run_that_outgrows_its_budget_stops_with_memory_error_not_an_abort():
    # TCP flows are held back by their windows only; the estimate leaves
    # them to the check during the run. Forty 4 MiB windows over a 400 ms
    # round trip hold some 30,000 packets (7 MB) once slow start is over.
    net = tl.Network()
    r = net.router("r")
    for i in range(40):
        s, d = net.host(f"s{i}"), net.host(f"d{i}")
        net.link(s, r, rate="1Gbps", delay="1ms")
        net.link(r, d, rate="1Gbps", delay="200ms")
        net.tcp(s, d, cc="newreno")
    with pytest.raises(MemoryError) as e:
        net.run(duration="20s", memory_budget="2MiB")
    msg = str(e.value)
    assert "over its memory budget of 2 MiB" in msg and "packets in flight" in msg
    # The network (its estimate) counts in what the run holds: the message
    # names it beside what grew.
    assert "(the network " in msg
    assert net.run(duration="20s", memory_budget="64MiB").summary["peak_packets"] > 20_000


# ---- builder values -------------------------------------------------------------------


@pytest.mark.parametrize("rate", [np.int64(5_000_000), np.float64(5e6), decimal.Decimal("5e6"),
                                  fractions.Fraction(5_000_000, 1), 5_000_000])
def test_numeric_scalars_of_other_types_are_accepted(rate):
    net = two_hosts(rate=rate)
    net.udp("a", "b", rate=np.int32(1_000_000), size=np.uint16(1000))
    res = net.run(duration="1s")
    assert res.links.iloc[0]["rate_bps"] == 5_000_000
    assert res.flows.iloc[0]["delivered_packets"] == 125


def test_numpy_arrays_become_lists():
    net = two_hosts(loss=tl.DropList(np.array([3, 5])))
    net.udp("a", "b", rate="1Mbps")
    assert net.run(duration="1s").flows.iloc[0]["lost_error"] == 2


@pytest.mark.parametrize("value, problem", [
    (b"5Mbps", "a value of type bytes is not a scenario value"),
    (object(), "a value of type object is not a scenario value"),
    (1 + 2j, "a value of type complex is not a scenario value"),
])
def test_other_values_are_refused_with_the_field_named(value, problem):
    with pytest.raises(tl.ScenarioError) as e:
        two_hosts(rate=value).run(duration="1s")
    assert e.value.path == "links[0].rate"
    assert str(e.value).startswith(f"links[0].rate: {problem}")


def test_pcap_dir_none_is_refused_not_written_into_a_directory_named_none(tmp_path):
    with pytest.raises(tl.ScenarioError) as e:
        tl.Pcap(dir=None)
    assert e.value.path == "pcap.dir"
    assert tl.Pcap(dir=tmp_path).to_dict()["dir"] == str(tmp_path)


# ---- malformed files ------------------------------------------------------------------


def refused_file(tmp_path: Path, content: bytes, name: str = "s.toml") -> tl.ScenarioError:
    p = tmp_path / name
    p.write_bytes(content)
    with pytest.raises(tl.ScenarioError) as e:
        tl.load(p).check()
    assert "\n" not in str(e.value)
    return e.value


def test_unreadable_scenario_files_give_one_scenario_error(tmp_path):
    assert "is not UTF-8 text" in str(refused_file(tmp_path, os.urandom(4096) + b"\xff"))
    utf16 = 'duration = "1s"\n'.encode("utf-16")
    assert "is UTF-16 text; save it as UTF-8" in str(refused_file(tmp_path, utf16))
    latin1 = 'name = "débit"\n'.encode("latin-1")
    assert "(byte 0xe9 on line 1)" in str(refused_file(tmp_path, latin1))
    assert "nested too deeply" in str(refused_file(tmp_path, b"x = " + b"[" * 100_000))
    assert "not valid TOML" in str(refused_file(tmp_path, b"hosts = ["))
    with pytest.raises(tl.ScenarioError, match="is a directory, not a scenario file"):
        tl.load(tmp_path)
    with pytest.raises(tl.ScenarioError, match="no such scenario file"):
        tl.load(tmp_path / "missing.toml")
    e = refused_file(tmp_path, b"[1, 2]", "s.json")
    assert "a scenario is a table of fields, not a list" in str(e)


def test_a_toml_datetime_where_a_duration_belongs_is_refused_with_the_field(tmp_path):
    text = (ROOT / "examples" / "udp_over_lossy_link.toml").read_text()
    text = text.replace('duration = "60s"', "duration = 1979-05-27T07:32:00Z")
    e = refused_file(tmp_path, text.encode())
    assert e.path == "duration" and "a date/time" in str(e)


def test_empty_and_comment_only_files_are_refused_not_run_for_zero_seconds(tmp_path):
    for content in (b"", b"# nothing here\n\n# really\n"):
        e = refused_file(tmp_path, content)
        assert e.path == "flows" and "has no flows" in str(e)


def test_errors_in_a_toml_file_name_its_line_not_a_json_position(tmp_path):
    text = (ROOT / "examples" / "udp_over_lossy_link.toml").read_text()
    bad = text.replace('rate = "2Mbps"', "rate = { value = 2 }")
    lineno = bad.splitlines().index("rate = { value = 2 }") + 1
    e = refused_file(tmp_path, bad.encode())
    assert e.path == "links[1].rate"
    assert str(e).endswith(f"[{tmp_path / 's.toml'}, line {lineno}]")
    assert "column" not in str(e)


def test_toml_line_finds_fields_in_tables_arrays_and_inline_tables():
    from tcplab.scenario import toml_line

    text = textwrap.dedent("""\
        duration = "1s"   # line 1
        hosts = ["a", "b"]
        [[links]]
        a = "a"
        rate = "1Mbps"
        [[links]]
        rate = "2Mbps"
        loss = { model = "uniform", per = 2 }
        [[flows]]
        kind = "udp"
        [flows.app]
        size = 3
    """)
    assert toml_line(text, "duration") == 1
    assert toml_line(text, "links[0].rate") == 5
    assert toml_line(text, "links[1].rate") == 7
    assert toml_line(text, "links[1].loss.per") == 8
    assert toml_line(text, "flows[0].kind") == 10
    assert toml_line(text, "links[2].rate") is None


# ---- files written -------------------------------------------------------------------


def test_pcap_names_that_used_to_collide_get_distinct_files(tmp_path):
    net = tl.Network()
    a, b, c, d = (net.host(n) for n in "abcd")
    r = net.router("r")
    for n, (x, name) in enumerate([(a, "x y"), (b, "x_y"), (c, "X"), (d, "x")]):
        net.link(x, r, rate="10Mbps", delay="1ms", name=name)
        del n
    net.udp(a, b, rate="1Mbps")
    res = net.run(duration="1s", pcap=tl.Pcap(dir=tmp_path))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(["x%20y-0.pcap", "x%20y-1.pcap", "x_y-0.pcap", "x_y-1.pcap",
                            "X-0.pcap", "X-1.pcap", "x~3-0.pcap", "x~3-1.pcap"])
    assert len(set(res.pcap["path"])) == 8


def test_outputs_replace_a_planted_symlink_instead_of_writing_through_it(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("flows.csv", "results.json", "bottleneck-0.pcap"):
        (out / name).symlink_to(victim)
    net = two_hosts(name="bottleneck")
    net.udp("a", "b", rate="1Mbps")
    res = net.run(duration="1s", pcap=tl.Pcap(dir=out))
    res.save(out)
    assert victim.read_text() == "precious"
    for name in ("flows.csv", "results.json", "bottleneck-0.pcap"):
        assert not (out / name).is_symlink() and (out / name).stat().st_size > 0


def test_two_runs_give_byte_identical_result_files(tmp_path):
    def run(out):
        net = two_hosts(loss=tl.Uniform(0.01))
        net.tcp("a", "b", cc="cubic")
        return net.run(duration="20s", seed=3, trace=["cwnd", "drops"]).save(out)

    first, second = run(tmp_path / "1"), run(tmp_path / "2")
    for a, b in zip(first, second, strict=True):
        if a.name != "timing.json":
            assert a.read_bytes() == b.read_bytes(), a.name
    timing = json.loads((tmp_path / "1" / "timing.json").read_text())
    assert set(timing) == {"wall_seconds", "events_per_second", "parse_seconds", "check_seconds",
                           "build_seconds", "results_seconds", "tables_seconds"}
    assert all(v >= 0 for v in timing.values())
    results = json.loads((tmp_path / "1" / "results.json").read_text())
    assert "wall_seconds" not in json.dumps(results)
