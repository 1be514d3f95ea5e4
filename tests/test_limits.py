"""Limits before anything is built or run (issue 52, items 6, 7, 9 and 11).

- What the network built from a scenario holds (flows, links, routing
  tables, queue disciplines, capacity traces, a workload's transfers) is
  counted against the memory budget, and a scenario that does not fit is
  refused before any of it is built, naming the field, the estimate and
  the budget: never an abort, never the kernel's OOM killer.
- `check` needs no more memory than `run`.
- A file a scenario names that is not a regular file (a FIFO) is refused,
  not opened: opening a FIFO waits for a writer, out of reach of Ctrl-C.
- Queue-discipline timers below 1 us are refused, naming the floor.

The cases that aborted or exhausted memory before the fix run in a child
process whose address space is capped, so that a regression shows as a
failed test, cheaply, and never takes the machine's memory.
"""

import os
import re
import resource
import subprocess
import sys

import pytest
import tcplab as tl


def two_hosts(**link) -> tl.Network:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, **{"rate": "10Mbps", "delay": "1ms", **link})
    return net


def capped(cap_gib: float = 3):
    """preexec_fn for a child whose address space is capped (an allocation beyond fails)."""
    def limit() -> None:
        cap = int(cap_gib * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    return limit


def check_file(path, *args, timeout=60):
    """`tcplab check FILE ARGS` in a capped child: (exit status, stderr)."""
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "check", str(path), *args],
                       capture_output=True, text=True, timeout=timeout, preexec_fn=capped())
    return r.returncode, r.stderr


SCENARIO = """\
duration = "2s"
hosts = ["a", "b"]

[[links]]
a = "a"
b = "b"
rate = {rate}
delay = "10ms"
{link}

[[flows]]
kind = "tcp"
src = "a"
dst = "b"
{flow}
"""


def scenario_file(tmp_path, rate='"10Mbps"', link="", flow="", top=""):
    p = tmp_path / "s.toml"
    p.write_text(top + SCENARIO.format(rate=rate, link=link, flow=flow))
    return p


# ---- item 6: a workload's transfers ------------------------------------------------


def test_a_poisson_workload_beyond_the_budget_is_refused_before_it_is_expanded(tmp_path):
    # A thousand million arrivals a second: drawn one by one, they aborted
    # the process (SIGABRT) in `tcplab check` too.
    p = scenario_file(tmp_path, flow='app = {kind = "poisson", sizes = "websearch", '
                                     'arrival_rate = 1e9}')
    code, err = check_file(p)
    assert code == 2, err
    assert err.startswith("error: flows[0].app.arrival_rate: about 2,000,000,000 transfers "
                          "(1,000,000,000 per second for 2 s) would take about "), err
    assert "over the memory budget of 4 GiB" in err and "raise memory_budget" in err
    # From Python (a notebook's kernel): the same ScenarioError, nothing aborts.
    sc = tl.load(p)
    with pytest.raises(tl.ScenarioError) as e:
        sc.check()
    assert e.value.path == "flows[0].app.arrival_rate"


def test_a_workload_is_counted_against_the_budget_it_is_given():
    net = two_hosts()
    net.tcp("a", "b", app=tl.Poisson(sizes="websearch", arrival_rate=100_000))
    # 200,000 transfers (2.5 kB each, as flows of the network) fit 4 GiB, not 100 MB.
    with pytest.raises(tl.ScenarioError) as e:
        net.scenario(duration="2s", memory_budget="100MB").check()
    assert e.value.path == "flows[0].app.arrival_rate"
    assert "about 200,000 transfers" in str(e.value)
    assert "over the memory budget of 95.4 MiB" in str(e.value)
    net = two_hosts()
    net.tcp("a", "b", app=tl.Poisson(sizes="websearch", arrival_rate=100))
    assert net.scenario(duration="2s", memory_budget="100MB").check()


# ---- item 7: what is built before the run ----------------------------------------------


def test_an_fq_codel_of_four_billion_flow_queues_is_refused_before_it_is_built(tmp_path):
    # 16 GB per link direction: the kernel killed `tcplab check`.
    p = scenario_file(tmp_path, link='queue = {kind = "fq_codel", flows = 4000000000}')
    code, err = check_file(p)
    assert code == 2, err
    assert err.startswith("error: links[0].queue: the queue disciplines of links[0] (1 link of "
                          "fq_codel with 4,000,000,000 flow queues per direction) would take "
                          "about 29.8 GiB before the run starts"), err
    assert "over the memory budget of 4 GiB" in err
    # The same with the budget given on the command line.
    p = scenario_file(tmp_path, link='queue = {kind = "fq_codel", flows = 10000000}')
    code, err = check_file(p, "--memory-budget", "64MB")
    assert code == 2 and "over the memory budget of 61.0 MiB" in err, err
    assert check_file(p)[0] == 0


def test_many_flows_are_refused_before_they_are_built_naming_the_count():
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="1ms")
    n = 100_000
    net.tcp([a] * n, [b] * n, app=tl.Bulk(start="1s"))
    with pytest.raises(tl.ScenarioError) as e:
        net.scenario(duration="2s", memory_budget="100MB").check()
    assert e.value.path == "flows"
    assert "100,000 flows (1 entry) would take about" in str(e.value)
    assert "over the memory budget of 95.4 MiB" in str(e.value)
    # Within the default budget, the same network is accepted.
    assert net.scenario(duration="2s").check()


def test_routing_tables_count_against_the_budget():
    # A chain of 5,000 routers: each has a table of an entry per node (100 MB).
    net = tl.Network()
    routers = [net.router(f"r{i}") for i in range(5000)]
    a, b = net.host("a"), net.host("b")
    ends = [a, *routers, b]
    net.link(ends[:-1], ends[1:], rate="10Mbps", delay="1us")
    net.tcp(a, b)
    with pytest.raises(tl.ScenarioError) as e:
        net.scenario(duration="1s", memory_budget="64MiB").check()
    assert e.value.path == "routers" and "the routing tables (5,000 nodes" in str(e.value)
    assert net.scenario(duration="1s", memory_budget="256MiB").check()


def test_a_capacity_trace_is_counted_as_it_is_read(tmp_path):
    # 2,000,000 opportunities (16 MB of times): refused at 8 MiB, read at 64 MiB.
    trace = tmp_path / "big.trace"
    trace.write_text("".join(f"{1 + i // 20}\n" for i in range(2_000_000)))
    p = scenario_file(tmp_path, rate=f'{{trace = "{trace}"}}')
    code, err = check_file(p, "--memory-budget", "8MiB")
    assert code == 2, err
    assert err.startswith(f"error: links[0].rate.trace: the capacity trace '{trace}' ("), err
    # The whole file's need, extrapolated from what was read when it passed the budget.
    assert re.search(r"\(11\.\d MiB, about 2,\d\d\d,\d\d\d opportunities\) would take about "
                     r"1\d\.\d MiB before the run starts", err), err
    assert "over the memory budget of 8 MiB" in err
    assert check_file(p, "--memory-budget", "64MiB")[0] == 0


MEASURE = """
import json, resource, sys
from tcplab import _core
n = int(sys.argv[1])
hosts = [f"s{i}" for i in range(n)] + [f"d{i}" for i in range(n)]
links = [{"a": "r0", "b": "r1", "rate": "100Mbps", "delay": "10ms", "name": "bottleneck"}]
for i in range(n):
    links += [{"a": f"s{i}", "b": "r0", "rate": "1Gbps", "delay": "1ms"},
              {"a": "r1", "b": f"d{i}", "rate": "1Gbps", "delay": "1ms"}]
flows = [{"kind": "tcp", "src": f"s{i}", "dst": f"d{i}", "start": "0.2s"} for i in range(n)]
data = {"duration": "0.5s", "hosts": hosts, "routers": ["r0", "r1"], "links": links,
        "flows": flows}
import gc; gc.collect()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
getattr(_core, sys.argv[2])(data)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)
"""


def test_check_needs_no_more_memory_than_run():
    # Separate entries, as a generated scenario file has them: check copied
    # the scenario and wrote its text with the world still built (1.3 times
    # run's peak at 200,000 flows: 2.35 GB against 1.8).
    peak = {}
    for fn in ("check_json", "run_json"):
        r = subprocess.run([sys.executable, "-c", MEASURE, "20000", fn], capture_output=True,
                           text=True, timeout=300, check=True)
        peak[fn] = float(r.stdout)
    assert peak["check_json"] <= 1.02 * peak["run_json"], peak


# ---- item 9: files that are not regular files --------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_named_as_a_capacity_trace_is_refused_not_opened(tmp_path):
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    p = scenario_file(tmp_path, rate=f'{{trace = "{fifo}"}}')
    code, err = check_file(p, timeout=20)  # before: waited for a writer for ever
    assert code == 2, err
    assert err.startswith(f"error: links[0].rate.trace: '{fifo}' is a FIFO (named pipe), not a "
                          "regular file (allowed: a mahimahi trace"), err
    # A directory likewise.
    p = scenario_file(tmp_path, rate=f'{{trace = "{tmp_path}"}}')
    code, err = check_file(p)
    assert code == 2 and "is a directory, not a regular file" in err, err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_named_as_a_cdf_file_is_refused_not_opened(tmp_path):
    fifo = tmp_path / "sizes.cdf"
    os.mkfifo(fifo)
    p = scenario_file(tmp_path, flow='app = {kind = "poisson", load = 0.1, '
                                     'sizes = {file = "sizes.cdf"}}')
    code, err = check_file(p, timeout=20)
    assert code == 2, err
    assert err.strip() == (f"error: flows[0].app.sizes.file: {fifo} is a FIFO (named pipe), "
                           "not a regular file"), err
    with pytest.raises(tl.ScenarioError, match="is a FIFO"):
        tl.read_cdf(fifo)


# ---- item 11: discipline timers ----------------------------------------------------------


@pytest.mark.parametrize("queue, message", [
    ({"kind": "pie", "t_update": "1ns"}, "t_update: at least 1 us (a discipline's timer"),
    ({"kind": "red", "adaptive": True, "interval": "100ns"},
     "interval: at least 1 us (a discipline's timer"),
    ({"kind": "codel", "target": "1ns", "interval": "1ns"}, "target: at least 1.024 us"),
    ({"kind": "fq_codel", "target": "1ns"}, "target: at least 1.024 us"),
])
def test_discipline_timers_below_a_microsecond_are_refused(queue, message):
    # PIE at t_update = 1 ns took 20 s of wall time for 2 simulated seconds.
    net = two_hosts(queue=queue)
    net.tcp("a", "b")
    with pytest.raises(tl.ScenarioError) as e:
        net.scenario(duration="2s").check()
    assert e.value.path == "links[0].queue"
    assert message in str(e.value)


def test_a_timer_at_the_floor_runs():
    net = two_hosts(queue={"kind": "pie", "t_update": "1us"})
    net.tcp("a", "b")
    assert net.run(duration="0.2s").flows.iloc[0]["delivered_bytes"] > 0


def test_the_examples_fit_the_default_budget():
    # Counting the network changes nothing for scenarios of an ordinary size.
    from pathlib import Path

    for p in sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.toml")):
        text = p.read_text()
        if "[scenario]" in text:
            continue
        assert tl.load(p).check(), p
