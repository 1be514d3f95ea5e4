"""Every mistake is refused before the run, with a message naming the field."""

import pytest
import tcplab as tl


def base() -> dict:
    return {
        "duration": "1s",
        "hosts": ["a", "b"],
        "routers": ["r"],
        "links": [
            {"a": "a", "b": "r", "rate": "10Mbps", "delay": "1ms"},
            {"a": "r", "b": "b", "rate": "2Mbps", "delay": "1ms"},
        ],
        "flows": [{"kind": "udp", "src": "a", "dst": "b", "rate": "1Mbps"}],
    }


def refuse(mutate, match: str, path: str | None = None, exc=tl.ScenarioError):
    d = base()
    mutate(d)
    with pytest.raises(exc, match=match) as info:
        tl.Scenario(d).run()
    if path is not None:
        assert info.value.path == path
    return info.value


def test_base_is_valid():
    assert tl.Scenario(base()).run().flow("udp0")["delivered_packets"] > 0


def test_negative_rate():
    refuse(lambda d: d["links"][1].update(rate="-2Mbps"),
           r"links\[1\]\.rate: .*too small \(allowed: 1 bit/s to 1 Pb/s\)", "links[1].rate")


def test_zero_rate():
    refuse(lambda d: d["links"][0].update(rate=0),
           r"links\[0\]\.rate: 0 bit/s is too small \(allowed: 1 bit/s to 1 Pb/s\)")


@pytest.mark.parametrize("value, message", [
    (float("nan"), "NaN is not a rate (allowed: 1 bit/s to 1 Pb/s)"),
    (float("inf"), "inf is not a rate (allowed: 1 bit/s to 1 Pb/s)"),
    ("2e19bps", "'2e19bps': 2e19 bit/s is too large (allowed: 1 bit/s to 1 Pb/s)"),
    (2e19, "2e19 bit/s is too large (allowed: 1 bit/s to 1 Pb/s)"),
])
def test_rates_out_of_range_say_what_is_allowed(value, message):
    e = refuse(lambda d: d["links"][0].update(rate=value), ".", "links[0].rate")
    assert str(e) == f"links[0].rate: {message}"


def test_sizes_and_durations_out_of_range_are_refused_not_saturated():
    e = refuse(lambda d: d["flows"][0].update(size="1e30B"), ".", "flows[0].size")
    assert "too large (allowed: 0 to 2^53 bytes (8 PiB))" in str(e)
    e = refuse(lambda d: d["links"][0].update(delay=float("nan")), ".", "links[0].delay")
    assert "NaN is not a duration" in str(e)
    e = refuse(lambda d: d["links"][0].update(delay="1e12s"), ".", "links[0].delay")
    assert "too long (allowed: 0 s to 584 years" in str(e)


def test_a_transfer_of_1e30_bytes_is_too_large_not_2_to_the_64():
    def transfer(d):
        d["flows"] = [{"kind": "tcp", "src": "a", "dst": "b",
                       "app": {"kind": "transfer", "size": "1e30B"}}]
    e = refuse(transfer, ".", "flows[0].app.size")
    assert "too large" in str(e)


def test_delayed_ack_zero_is_refused_and_booleans_are_switches():
    def tcp(v):
        def m(d):
            d["flows"] = [{"kind": "tcp", "src": "a", "dst": "b", "delayed_ack": v}]
        return m
    e = refuse(tcp(0), ".", "flows[0].delayed_ack")
    assert "0 is not a number of segments" in str(e)
    d = base()
    tcp(False)(d)
    assert tl.Scenario(d).check()["flows"][0]["delayed_ack"] == 1
    tcp(True)(d)
    assert tl.Scenario(d).check()["flows"][0]["delayed_ack"] == 2


def test_a_scenario_without_flows_is_refused():
    e = refuse(lambda d: d.update(flows=[]), ".", "flows")
    assert "has no flows" in str(e)


def test_messages_never_point_into_the_internal_json_text():
    e = refuse(lambda d: d["links"][0].update(delay={"a": 1}), ".", "links[0].delay")
    assert "line 1" not in str(e) and "column" not in str(e)


def test_rate_with_unknown_unit_lists_units():
    e = refuse(lambda d: d["links"][0].update(rate="10Mbs"), r"unknown unit 'Mbs'.*Mbps")
    assert isinstance(e, ValueError)


def test_per_outside_unit_interval():
    e = refuse(lambda d: d["links"][1].update(loss={"model": "uniform", "per": 1.5}),
               r"links\[1\]\.loss\.per: 1\.5 is not a probability \(allowed: 0 to 1\)",
               "links[1].loss.per")
    assert e.allowed == "0 to 1"
    refuse(lambda d: d["links"][1].update(reverse_loss={"model": "uniform", "per": -0.1}),
           r"links\[1\]\.reverse_loss\.per: -0\.1 is not a probability")


def test_unknown_field_is_named():
    refuse(lambda d: d["links"][0].update(rte="1Mbps"),
           r"links\[0\].*unknown field 'rte', expected one of 'name', 'a', 'b', 'rate'")
    refuse(lambda d: d.update(sede=3), r"unknown field 'sede'")


def test_unknown_model_name_lists_models():
    refuse(lambda d: d["links"][1].update(loss={"model": "gilbert", "per": 0.1}),
           r"links\[1\]\.loss\.model: unknown variant 'gilbert', expected one of 'uniform', "
           r"'ber', 'gilbert_elliott', 'list'")


def test_parameter_of_another_model():
    refuse(lambda d: d["links"][1].update(loss={"model": "uniform", "ber": 0.1}),
           r"links\[1\]\.loss\.ber: not a parameter of the 'uniform' model \(allowed: per\)")
    refuse(lambda d: d["links"][1].update(loss={"model": "gilbert_elliott", "bad_loss": 0.1}),
           r"links\[1\]\.loss\.good_time: required by the 'gilbert_elliott' model")


def test_unknown_flow_kind():
    refuse(lambda d: d["flows"][0].update(kind="quic"),
           r"flows\[0\]\.kind: unknown variant 'quic'")


def test_unroutable_host():
    def island(d):
        d["hosts"].append("c")
        d["flows"][0]["dst"] = "c"
    e = refuse(island, r"flows\[0\]: no route from 'a' to 'c' \(they are not connected\)",
               exc=tl.RoutingError)
    assert (e.src, e.dst) == ("a", "c")


def test_route_through_a_host_is_refused():
    def via_host(d):
        d["hosts"].append("c")
        d["links"].append({"a": "b", "b": "c", "rate": "1Mbps", "delay": 0})
        d["flows"][0]["dst"] = "c"
    refuse(via_host, r"no route from 'a' to 'c'.*hosts do not forward", exc=tl.RoutingError)


def test_duplicate_names():
    refuse(lambda d: d["routers"].append("a"),
           r"routers\[1\]: duplicate node name 'a' \(already hosts\[0\]\)")
    refuse(lambda d: d["links"].append({"a": "a", "b": "r", "rate": 1e6, "delay": 0}),
           r"links\[2\]\.name: duplicate link name 'a-r'")
    refuse(lambda d: d["flows"].append({"kind": "udp", "src": "a", "dst": "b", "rate": 1e6,
                                        "name": "udp0"}),
           r"flows\[1\]\.name: duplicate flow name 'udp0'")


def test_unknown_node():
    refuse(lambda d: d["links"][0].update(b="x"),
           r"links\[0\]\.b: unknown node 'x' \(allowed: a, b, r\)")


def test_flow_between_router_and_host():
    refuse(lambda d: d["flows"][0].update(src="r"), r"flows\[0\]\.src: 'r' is a router")


def test_datagram_larger_than_path_mtu():
    refuse(lambda d: (d["links"][1].update(mtu=576), d["flows"][0].update(size="1000B")),
           r"flows\[0\]\.size: 1000 B of payload does not fit.*576 B.*\(allowed: 1 to 548 B\)")


def test_missing_duration_for_endless_source():
    refuse(lambda d: d.pop("duration"), r"duration: required: flows\[0\] \('udp0'\)")


def test_bad_duration_and_times():
    refuse(lambda d: d.update(duration="0s"), r"duration: must be longer than 0 s")
    refuse(lambda d: d["flows"][0].update(start="2s", stop="1s"),
           r"flows\[0\]\.stop: must be after start")
    refuse(lambda d: d["links"][0].update(delay="-1ms"), r"links\[0\]\.delay: .*negative")


def test_bad_trace_name():
    refuse(lambda d: d.update(trace=["cwnd_typo"]),
           r"trace\[0\]: unknown recording 'cwnd_typo' \(allowed: queue, ")


def test_drop_list_counts_from_one():
    refuse(lambda d: d["links"][1].update(loss={"model": "list", "packets": [0, 3]}),
           r"counted from 1")
    refuse(lambda d: d["links"][1].update(loss={"model": "list", "packets": [3], "flow": "nope"}),
           r"links\[1\]\.loss\.flow: unknown flow 'nope' \(allowed: udp0\)")


def test_explicit_route_to_non_neighbour():
    refuse(lambda d: d.update(routes=[{"node": "a", "to": "b", "next": "b"}]),
           r"routes\[0\]\.next: 'b' is not a neighbour of 'a' \(allowed: r\)")


def test_errors_come_before_anything_runs():
    # check() builds without running and returns the effective scenario.
    eff = tl.Scenario(base()).check()
    assert eff["links"][0]["name"] == "a-r"
    assert eff["links"][0]["queue"] == "100p"
    assert eff["flows"][0]["size"] == "1000B"


def test_panics_become_internal_error():
    from tcplab import _core

    with pytest.raises(tl.InternalError, match="deliberate panic"):
        _core._panic_for_tests()
    assert issubclass(tl.InternalError, Exception)


def test_queue_takes_a_limit_or_a_table_naming_the_discipline():
    d = base()
    d["links"][1]["queue"] = {"kind": "droptail", "limit": "10p"}
    as_table = tl.Scenario(d).run()
    d["links"][1]["queue"] = "10p"
    as_limit = tl.Scenario(d).run()
    assert as_table.links.equals(as_limit.links)
    assert tl.Scenario(d).check()["links"][1]["queue"] == "10p"
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "blue", "min_th": 5}), ".",
               "links[1].queue")
    assert "unknown variant 'blue', expected one of 'droptail', 'red', 'codel', 'fq_codel'" \
        in str(e)


def test_red_parameters_are_checked_before_the_run_and_named():
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "red", "min_th": 9, "max_th": 3}),
               ".", "links[1].queue")
    assert "max_th: at least min_th (9), got 3" in str(e)
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "red", "max_p": 2}), ".",
               "links[1].queue")
    assert "max_p: a probability in [0, 1], got 2" in str(e)
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "red", "minth": 5}), ".",
               "links[1].queue")
    assert "minth" in str(e)
    e = refuse(lambda d: d["links"][1].update(reverse_queue={"kind": "red", "w_q": 0}), ".",
               "links[1].reverse_queue")
    assert "w_q: a weight in (0, 1]" in str(e)


def test_red_and_reverse_queue_run_from_python_and_echo_back():
    d = base()
    d["links"][1]["queue"] = {"kind": "red", "min_th": 5, "max_th": 15, "limit": "60p"}
    d["links"][1]["reverse_queue"] = "7p"
    sc = tl.Scenario(d)
    echoed = sc.check()["links"][1]
    assert echoed["queue"]["kind"] == "red" and echoed["queue"]["max_th"] == 15
    assert echoed["reverse_queue"] == "7p"
    res = sc.run()
    assert {"drops_aqm", "marks"} <= set(res.links.columns)


def test_codel_and_fq_codel_parameters_are_checked_and_named():
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "codel", "target": "50ms",
                                                      "interval": "10ms"}),
               ".", "links[1].queue")
    assert "interval: at least target (50ms), got 10ms" in str(e)
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "codel", "ce_threshold": "1ms"}),
               ".", "links[1].queue")
    assert "ce_threshold: marks, so it needs ecn = true" in str(e)
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "fq_codel", "quantum": 0}),
               ".", "links[1].queue")
    assert "quantum: at least 1 B" in str(e)
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "fq_codel", "flows": 0}),
               ".", "links[1].queue")
    assert "flows: at least 1" in str(e)
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "pie", "mark_ecn_threshold": 2}),
               ".", "links[1].queue")
    assert "mark_ecn_threshold: a probability in [0, 1], got 2" in str(e)
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "codel", "taget": "5ms"}),
               ".", "links[1].queue")
    assert "codel: unknown field 'taget', expected one of 'limit', 'target'" in str(e)


def test_codel_fq_codel_and_pie_run_from_python_and_echo_their_defaults():
    d = base()
    d["flows"][0]["rate"] = "3Mbps"  # into 2 Mb/s: a standing queue
    for kind, target in (("codel", "5ms"), ("fq_codel", "5ms"), ("pie", "15ms")):
        d["links"][1]["queue"] = {"kind": kind}
        sc = tl.Scenario(d)
        echoed = sc.check()["links"][1]["queue"]
        assert echoed["kind"] == kind and echoed["target"] == target
        res = sc.run()
        row = res.links[(res.links["src"] == "r") & (res.links["dst"] == "b")].iloc[0]
        # UDP is not ECN-capable: the standing queue costs it drops (PIE's
        # 25 packets also overflow).
        assert row["drops_aqm"] > 0
        assert (row["drops_queue"] == 0) == (kind != "pie")


def test_a_device_queue_is_checked_and_named():
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "droptail", "limit": "64KiB",
                                                      "device_queue": 1}),
               ".", "links[1].queue")
    assert "device_queue: drop-tail takes one only with a packet limit" in str(e)
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "codel", "device_queue": -1}),
               ".", "links[1].queue")
    assert "device_queue" in str(e)
    e = refuse(lambda d: d["links"][1].update(queue={"kind": "droptail", "device": 1}),
               ".", "links[1].queue")
    assert "expected one of 'kind', 'limit', 'device_queue'" in str(e)
    # A capacity schedule plans its own starts: no device queue there.
    e = refuse(lambda d: d["links"][1].update(
        queue={"kind": "pie", "device_queue": 1},
        schedule=[{"at": "0.5s", "rate": "1Mbps"}]),
        ".", "links[1].queue.device_queue")
    assert "a device queue on a direction whose rate follows a trace or a schedule" in str(e)
    e = refuse(lambda d: d["links"][1].update(
        queue="100p", reverse_queue={"kind": "red", "device_queue": 2},
        reverse_schedule=[{"at": "0.5s", "rate": "1Mbps"}]),
        ".", "links[1].reverse_queue.device_queue")


def test_a_device_queue_is_echoed_and_folded_into_a_drop_tail_limit():
    d = base()
    d["links"][1]["queue"] = {"kind": "codel", "device_queue": 1}
    d["links"][1]["reverse_queue"] = {"kind": "droptail", "limit": "20p", "device_queue": 3}
    echoed = tl.Scenario(d).check()["links"][1]
    assert echoed["queue"]["device_queue"] == 1
    assert echoed["reverse_queue"] == "23p"
    d["links"][1]["queue"] = {"kind": "codel", "device_queue": 0}
    assert "device_queue" not in tl.Scenario(d).check()["links"][1]["queue"]


def test_the_text_table_shows_aqm_drops_only_when_there_are_some():
    d = base()
    d["duration"] = "5s"
    plain = tl.Scenario(d).run().table()
    assert "drops (aqm)" not in plain
    d["flows"][0]["rate"] = "3Mbps"  # into 2 Mb/s: a standing queue
    d["links"][1]["queue"] = {"kind": "red", "min_th": 1, "max_th": 3, "w_q": 1, "limit": "50p"}
    res = tl.Scenario(d).run()
    assert res.links["drops_aqm"].sum() > 0
    assert "drops (aqm)" in res.table()


def test_delay_percentiles_fill_the_distribution_columns_on_request():
    def run(**kw):
        net = tl.Network()
        a, r, b = net.host("a"), net.router("r"), net.host("b")
        net.link(a, r, rate="100Mbps", delay="1ms")
        net.link(r, b, rate="10Mbps", delay="20ms", queue={"kind": "codel"}, name="bn")
        net.tcp(a, b)
        return net.run(duration="10s", **kw)
    plain, full = run(), run(delay_percentiles=True)
    cols = ["delay_p50_s", "delay_p99_s", "jitter_s", "ack_delay_p50_s"]
    assert plain.flows[cols].isna().all(axis=None)
    assert full.flows[cols].notna().all(axis=None)
    # The means are always there, and the same.
    assert plain.flows["delay_mean_s"].equals(full.flows["delay_mean_s"])
    bn = full.links[(full.links["link"] == "bn") & (full.links["src"] == "r")].iloc[0]
    assert 0 < bn["sojourn_p50_s"] <= bn["sojourn_p99_s"] <= bn["sojourn_max_s"]
    assert plain.links["sojourn_p50_s"].isna().all()
    assert full.scenario["delay_percentiles"] is True
