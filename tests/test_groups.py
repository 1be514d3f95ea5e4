"""Groups of links and flows (lists of ends) and the columnar results."""

import json

import pytest
import tcplab as tl
from tcplab.scenario import scenario_json

N = 4
STARTS = [0, 0.25, 0.5, 0.75]


def dumbbell(grouped: bool, cc="newreno", app=tl.Bulk, starts=STARTS, **tcp) -> tl.Network:
    """N senders through one lossy bottleneck to N receivers, as groups or one by one.

    ``app`` makes each flow's application from its start; ``tcp`` is passed to every flow.
    """
    net = tl.Network()
    r0, r1 = net.router("r0"), net.router("r1")
    if grouped:
        s = net.hosts([f"s{i}" for i in range(N)])
        d = net.hosts([f"d{i}" for i in range(N)])
        net.link(s, r0, rate="100Mbps", delay="2ms", loss=tl.Uniform(0.002))
    else:
        s = [net.host(f"s{i}").name for i in range(N)]
        d = [net.host(f"d{i}").name for i in range(N)]
        for x in s:
            net.link(x, r0, rate="100Mbps", delay="2ms", loss=tl.Uniform(0.002))
    net.link(r0, r1, rate="10Mbps", delay="10ms", queue="40p", name="bottleneck")
    if grouped:
        net.link(r1, d, rate="100Mbps", delay="1ms")
        net.tcp(s, d, cc=cc, app=app(start=starts), **tcp)
    else:
        for x in d:
            net.link(r1, x, rate="100Mbps", delay="1ms")
        for k in range(N):
            net.tcp(s[k], d[k], cc=cc, app=app(start=starts[k]), **tcp)
    net.udp("s0", "d1", rate="1Mbps", start="1s")
    return net


def test_a_group_runs_exactly_as_its_members_added_one_by_one():
    one = dumbbell(False).run(duration="6s", seed=5, trace=["drops"])
    grouped = dumbbell(True).run(duration="6s", seed=5, trace=["drops"])
    assert one.raw["flows"] == grouped.raw["flows"]
    assert one.raw["links"] == grouped.raw["links"]
    assert one.raw["drops"] == grouped.raw["drops"]
    assert one.summary == grouped.summary
    # Each member link keeps an error model of its own: some lose, some do not
    # the same packets, as when they are declared one by one.
    assert sum(f["lost_error"] for f in grouped.raw["flows"]) > 0


@pytest.mark.parametrize(("cc", "app", "tcp"), [
    ("cubic", lambda start: tl.Transfer(size="200KB", start=start), {"profile": "linux"}),
    ("vegas", lambda start: tl.OnOff([("1s", "2s"), ("3s", "5s")], start=start), {}),
    (tl.Cubic(beta=0.6), lambda start: tl.Bulk(start=start, stop="4s"), {"sack": True}),
    ("westwoodplus", tl.Bulk, {"profile": "ns2", "mss": 500}),
])
def test_a_group_resolved_once_runs_as_members_resolved_one_by_one(cc, app, tcp):
    # A group's members copy their first member's resolved configuration
    # and controller, each with its own start (the first starts last here);
    # flows added one by one resolve each their own.
    starts = STARTS[::-1]
    one = dumbbell(False, cc, app, starts, **tcp).run(duration="6s", seed=5, trace=["cwnd"])
    grouped = dumbbell(True, cc, app, starts, **tcp).run(duration="6s", seed=5, trace=["cwnd"])
    assert one.raw["flows"] == grouped.raw["flows"]
    for k in range(N):
        assert (one.trace("cwnd", flow=k)[1] == grouped.trace("cwnd", flow=k)[1]).all()
    members = [f for f in one.scenario["flows"] if f["kind"] == "tcp"]
    group = grouped.scenario["flows"][0]
    for field in ("cc", "mss", "app", "profile", "recovery", "initial_cwnd", "min_rto"):
        assert all(m[field] == group[field] for m in members), field


def test_group_handles_name_their_members_and_rows():
    net = tl.Network()
    r = net.router("r")
    s = net.hosts(["s0", "s1", "s2"])
    links = net.link(s, r, rate="10Mbps", delay="1ms")
    net.host("d")
    net.link(r, "d", rate="10Mbps", delay="5ms")
    first = net.udp("s0", "d", rate="1Mbps")
    flows = net.tcp(s, "d", cc="cubic", name=["x", "y", "z"])
    after = net.tcp("s1", "d")
    assert isinstance(links, tl.Group) and len(links) == 3
    assert links.names == ["s0-r", "s1-r", "s2-r"]
    assert flows.names == ["x", "y", "z"] and flows.first == 1
    assert after.name == "tcp4"  # each member counts towards the default names
    res = net.run(duration="2s", seed=1)
    assert res.flows.iloc[flows.rows]["flow"].tolist() == ["x", "y", "z"]
    assert res.flows["flow"].tolist() == ["udp0", "x", "y", "z", "tcp4"]
    rows = res.links.iloc[links.link_rows]
    assert rows["link"].tolist() == ["s0-r", "s0-r", "s1-r", "s1-r", "s2-r", "s2-r"]
    assert rows["src"].tolist() == ["s0", "r", "s1", "r", "s2", "r"]
    assert first.name == "udp0"


def group_base() -> dict:
    return {
        "duration": "1s",
        "hosts": ["a0", "a1", "a2", "b"],
        "routers": ["r"],
        "links": [
            {"a": ["a0", "a1", "a2"], "b": "r", "rate": "10Mbps", "delay": "1ms"},
            {"a": "r", "b": "b", "rate": "2Mbps", "delay": "1ms"},
        ],
        "flows": [{"kind": "tcp", "src": ["a0", "a1", "a2"], "dst": "b",
                   "start": [0, "10ms", "20ms"]}],
    }


def refuse(mutate, match: str, path: str):
    d = group_base()
    mutate(d)
    with pytest.raises(tl.ScenarioError, match=match) as info:
        tl.Scenario(d).check()
    assert info.value.path == path


def test_a_group_in_a_scenario_file_checks_and_runs():
    res = tl.Scenario(group_base()).run()
    assert res.flows["flow"].tolist() == ["tcp0", "tcp1", "tcp2"]
    assert res.flows["start_s"].tolist() == [0.0, 0.01, 0.02]
    assert (res.flows["delivered_bytes"] > 0).all()


def test_group_lists_of_different_lengths_are_refused():
    refuse(lambda d: d["flows"][0].update(start=[0, 1]),
           r"flows\[0\]\.start: 2 values, but src has 3", "flows[0].start")
    refuse(lambda d: d["links"][0].update(name=["x", "y"]),
           r"links\[0\]\.name: 2 values, but a has 3", "links[0].name")


def test_an_empty_group_is_refused():
    refuse(lambda d: d["flows"][0].update(src=[]), r"needs at least one member",
           "flows[0].src")


def test_a_members_mistake_names_its_element():
    refuse(lambda d: d["flows"][0].update(src=["a0", "r", "a2"]),
           r"flows\[0\]\.src\[1\]: 'r' is a router", "flows[0].src[1]")
    refuse(lambda d: d["flows"][0].update(dst=["b", "b", "nowhere"]),
           r"flows\[0\]\.dst\[2\]: .*nowhere", "flows[0].dst[2]")
    refuse(lambda d: d["flows"][0].update(name=["f", "g", "f"]),
           r"flows\[0\]\.name\[2\]: duplicate flow name 'f'", "flows[0].name[2]")
    refuse(lambda d: d["links"][0].update(name=["l", "l\n", "m"]),
           r"links\[0\]\.name\[1\]: .*control character", "links[0].name[1]")


def test_a_group_over_paths_of_different_mtus_needs_an_mss():
    def mutate(d):
        d["links"][0] = {"a": "a0", "b": "r", "rate": "10Mbps", "delay": "1ms"}
        d["links"].insert(1, {"a": ["a1", "a2"], "b": "r", "rate": "10Mbps", "delay": "1ms",
                              "mtu": 1000})

    refuse(mutate, r"flows\[0\]\.mss: the group's flows have paths with different MTUs",
           "flows[0].mss")
    d = group_base()
    mutate(d)
    d["flows"][0]["mss"] = "900B"
    assert tl.Scenario(d).run().flows["mss"].tolist() == [900, 900, 900]


class Fixed(tl.CongestionControl):
    def init(self, tcb):
        self.mss = tcb.mss
        tcb.cwnd = 4 * tcb.mss

    def on_ack(self, tcb, ack):
        pass

    def ssthresh(self, tcb, bytes_in_flight):
        return max(2 * tcb.mss, bytes_in_flight // 2)


def test_python_controllers_drive_one_flow_not_a_group():
    net = tl.Network()
    r = net.router("r")
    net.link(net.hosts(["a", "c"]), r, rate="10Mbps", delay="1ms")
    net.host("b")
    net.link(r, "b", rate="10Mbps", delay="1ms")
    with pytest.raises(tl.ScenarioError, match=r"flows\[0\]\.cc: .*one flow, not a group"):
        net.tcp(["a", "c"], "b", cc=Fixed())
    d = group_base()
    d["flows"][0]["cc"] = {"name": "python", "class": "test_groups:Fixed"}
    with pytest.raises(tl.ScenarioError, match="one flow, not a group") as info:
        tl.Scenario(d).check()
    assert info.value.path == "flows[0].cc"


def _two_senders() -> tl.Network:
    """a and c -(10 Mb/s, 1 ms)- r -(1 Mb/s, 20 ms)- b."""
    net = tl.Network()
    r = net.router("r")
    net.link(net.hosts(["a", "c"]), r, rate="10Mbps", delay="1ms")
    net.host("b")
    net.link(r, "b", rate="1Mbps", delay="20ms", queue="1000p")
    return net


def test_a_python_controller_after_a_group_drives_its_own_flow():
    net = _two_senders()
    net.tcp(["a", "c"], "b", cc="newreno", app=tl.Bulk(start=[0, 0]))
    fixed = Fixed()
    net.tcp("c", "b", cc=fixed, mss=1000)
    res = net.run(duration="3s", seed=1)
    assert res.flows["flow"].tolist() == ["tcp0", "tcp1", "tcp2"]
    assert res.flows["cc"].tolist() == ["newreno", "newreno", "python"]
    assert fixed.mss == 1000  # the object was handed flow tcp2, not the group's tcp0
    sc = net.scenario(duration="3s", seed=1)
    from tcplab.cc import controllers_for, pinned_spec

    pinned = pinned_spec(sc.data, sc.custom)
    # Keyed by the flow's entry in `flows` (the group is entry 0), so that a
    # workload before it, of a number of flows known only at the run, does
    # not move the key.
    assert list(controllers_for(pinned)) == [1]


def test_a_python_controller_after_a_workload_drives_its_own_flow():
    net = _two_senders()
    w = net.tcp(["a", "c"], "b", app=tl.Poisson(sizes="websearch", arrival_rate=5, until="2s"))
    fixed = Fixed()
    f = net.tcp("c", "b", cc=fixed, mss=1000)
    res = net.run(duration="3s", seed=1)
    assert len(w.of(res.flows)) > 3
    assert res.flows["cc"].iloc[-1] == "python" and res.flows["flow"].iloc[-1] == f.name
    assert fixed.mss == 1000


def test_scenario_json_takes_numpy_and_paths_and_names_a_bad_value():
    np = pytest.importorskip("numpy")
    import pathlib

    d = {"seed": np.int64(3), "x": [np.float64(0.5)], "p": pathlib.Path("a/b")}
    assert json.loads(scenario_json(d)) == {"seed": 3, "x": [0.5], "p": "a/b"}
    with pytest.raises(tl.ScenarioError, match=r"y"):
        scenario_json({"y": object()})


def test_columnar_results_read_one_column_and_empty_tables():
    net = tl.Network()
    net.host("a"), net.host("b")
    net.link("a", "b", rate="10Mbps", delay="5ms", queue="1000p")
    net.tcp("a", "b")
    res = net.run(duration="1s", seed=1, trace=["drops"])
    assert res.column("flows", "flow") == ["tcp0"]
    assert res.column("flows", "delivered_bytes") == res.flows["delivered_bytes"].tolist()
    assert res.column("drops", "cause") == [] and len(res.drops) == 0
    assert res.column("links", "src") == ["a", "b"]
    assert res.column("flows", "completion_time_s") == [None]  # a bulk flow never completes
    assert res.raw["flows"][0]["flow"] == "tcp0"
    assert res.scenario["flows"][0]["cc"] == {"name": "newreno", "halve": "flightsize"}


def test_numeric_columns_cross_without_a_copy_and_frames_own_theirs():
    np = pytest.importorskip("numpy")
    net = tl.Network()
    net.host("a"), net.host("b")
    net.link("a", "b", rate="10Mbps", delay="5ms")
    net.tcp("a", "b")
    res = net.run(duration="1s", seed=1)
    kind, col = res._tables["flows"]["sent_packets"]
    # numpy reads the core's values in place, read-only, and keeps them alive.
    view = np.asarray(col)
    assert kind == "u8" and view.dtype == np.uint64 and view.base is col
    assert not view.flags.writeable and len(col) == 1
    assert col.tobytes() == view.astype("<u8").tobytes()
    _, goodput = res._tables["flows"]["goodput_bps"]
    assert np.asarray(goodput).dtype == np.float64
    # A frame's columns are its own: changing one leaves the results alone.
    flows = res.flows
    assert flows["sent_packets"].dtype == np.int64 and flows["sent_packets"][0] == view[0] > 0
    flows.loc[0, "sent_packets"] = -1
    assert view[0] > 0 and res.column("flows", "sent_packets")[0] == view[0]
