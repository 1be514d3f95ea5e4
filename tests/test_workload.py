"""Short-flow workloads: Poisson arrivals, flow sizes from a CDF, completion times and slowdown."""

from __future__ import annotations

import math

import pytest
import tcplab as tl


def two_hosts(rate: str = "10Mbps", delay: str = "10ms") -> tuple[tl.Network, object, object]:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate=rate, delay=delay, queue="1000p")
    return net, a, b


def dumbbell() -> tuple[tl.Network, list, object]:
    net = tl.Network()
    srcs = [net.host(f"s{k}") for k in range(3)]
    r, d = net.router("r"), net.host("d")
    net.link(srcs, r, rate="1Gbps", delay="50us", queue="1000p")
    net.link(r, d, rate="10Mbps", delay="5ms", queue="1000p")
    return net, srcs, d


def test_slowdown_of_a_lone_segment_is_hand_checked() -> None:
    # 1000 B over 10 Mb/s, 10 ms. Ideal: the handshake there and back
    # (20 ms), the data's propagation (10 ms) and 1000 + 40 B at 10 Mb/s
    # (0.832 ms) = 30.832 ms. Measured: the same plus the serialization of
    # the SYN and SYN-ACK (40 B + 8 B of options each) and of the
    # handshake's last ACK, which goes out just before the data:
    # (48 + 48 + 40) x 0.8 us = 108.8 us.
    net, a, b = two_hosts()
    net.tcp(a, b, app=tl.Transfer(size=1000))
    f = net.run(seed=1).flows.iloc[0]
    assert f["transfer_bytes"] == 1000
    assert f["completion_time_s"] == pytest.approx(0.0309408, abs=1e-12)
    assert f["completion_time_s"] / f["slowdown"] == pytest.approx(0.030832, abs=1e-12)


def test_slowdown_counts_headers_and_timestamps_per_segment() -> None:
    # 10 segments of 1448 B with timestamps: 14480 + 10 x 52 B on the wire.
    net, a, b = two_hosts(rate="100Mbps", delay="1ms")
    net.tcp(a, b, app=tl.Transfer(size=14480), timestamps=True, mss=1448)
    f = net.run(seed=1).flows.iloc[0]
    ideal = 0.003 + (14480 + 10 * 52) * 8 / 100e6
    assert f["completion_time_s"] / f["slowdown"] == pytest.approx(ideal, abs=1e-12)
    assert f["slowdown"] > 1


def test_slowdown_is_nan_for_bulk_and_unfinished_flows() -> None:
    net, a, b = two_hosts()
    net.tcp(a, b, app=tl.Transfer(size="100MB"))
    net.tcp(a, b, app=tl.Bulk())
    fl = net.run(duration="1s", seed=1).flows
    assert math.isnan(fl["slowdown"][0]) and fl["transfer_bytes"][0] == 100_000_000
    assert math.isnan(fl["slowdown"][1]) and fl["transfer_bytes"][1] == 0


def test_offered_load_reaches_the_bottleneck() -> None:
    # Fixed 14600-B transfers at 40% of 10 Mb/s: 34.25 arrivals per second.
    # Over 200 s, 6849 expected (standard deviation 83), and the bottleneck
    # carries 40% in payload plus the headers: 10 x 40 B per transfer and
    # the handshake's SYN (48 B), last ACK and FIN (40 B each).
    net, srcs, d = dumbbell()
    w = net.tcp(srcs, d, name="w", app=tl.Poisson(sizes=[(14600, 0), (14600, 1)], load=0.4,
                                                    until="200s"))
    res = net.run(duration="210s", seed=3)
    rows = w.of(res.flows)
    assert abs(len(rows) - 6849) < 4 * 83
    assert (rows["transfer_bytes"] == 14600).all()
    assert rows["completion_time_s"].notna().all()
    assert (rows["slowdown"] > 1).all()
    assert set(rows["src"]) == {"s0", "s1", "s2"}
    starts = rows["start_s"].to_numpy()
    assert (starts[1:] >= starts[:-1]).all() and starts[-1] < 200
    link = res.links[(res.links["link"] == "r-d") & (res.links["src"] == "r")].iloc[0]
    per_transfer = 14600 + 10 * 40 + 48 + 40 + 40
    expected = len(rows) * per_transfer * 8 / 10e6 / 210
    assert link["tx_bytes"] * 8 / 10e6 / 210 == pytest.approx(expected, rel=0.01)
    assert expected == pytest.approx(0.4 * 200 / 210 * per_transfer / 14600, rel=0.05)


def test_arrival_rate_and_the_built_in_distributions() -> None:
    net, srcs, d = dumbbell()
    w = net.tcp(srcs[0], d, name="dm",
                app=tl.Poisson(sizes="datamining", arrival_rate=50, until="100s"))
    fl = w.of(net.scenario(duration="100s", seed=1).run().flows)
    assert abs(len(fl) - 5000) < 4 * math.sqrt(5000)
    # Half the data-mining flows are one packet (1460 B).
    assert (fl["transfer_bytes"] <= 1460).mean() == pytest.approx(0.5, abs=0.03)
    assert fl["transfer_bytes"].max() <= 666667 * 1460


def test_workloads_are_reproducible_and_differ_by_seed() -> None:
    net, srcs, d = dumbbell()
    net.tcp(srcs, d, name="web", app=tl.Poisson(sizes="websearch", load=0.3, until="20s"))
    sc = net.scenario(duration="30s")
    a, b, c = (sc.run(seed=s).flows for s in (1, 1, 2))
    assert a.equals(b)
    assert not a[["start_s", "transfer_bytes"]].equals(c[["start_s", "transfer_bytes"]])


def test_the_effective_scenario_runs_the_same_workload() -> None:
    net, srcs, d = dumbbell()
    net.tcp(srcs, d, name="web", app=tl.Poisson(sizes="websearch", load=0.3, until="10s"))
    res = net.run(duration="15s", seed=4)
    app = res.scenario["flows"][0]["app"]
    assert app == {"kind": "poisson", "sizes": "websearch", "load": 0.3, "until": "10s"}
    again = tl.Scenario(res.scenario).run()
    assert again.flows.equals(res.flows)


def test_flows_after_a_workload_keep_unique_names() -> None:
    net, srcs, d = dumbbell()
    w = net.tcp(srcs, d, app=tl.Poisson(sizes="websearch", load=0.3, until="5s"))
    g = net.tcp(srcs, d, app=tl.Transfer(size="10kB"))
    f = net.tcp(srcs[0], d, app=tl.Transfer(size="10kB"))
    fl = net.run(duration="10s", seed=1).flows
    assert len(w.of(fl)) == len(fl) - 4
    assert list(fl["flow"][-4:]) == [*g.names, f.name]
    with pytest.raises(ValueError, match="by name"):
        _ = g.rows


def test_a_cdf_file_from_toml(tmp_path) -> None:
    (tmp_path / "sizes.cdf").write_text("# packets of 1460 B, percent\n1 1 0\n1 1 50\n10 1 100\n")
    (tmp_path / "s.toml").write_text(
        'duration = "20s"\nhosts = ["a", "b"]\n'
        'links = [{a = "a", b = "b", rate = "10Mbps", delay = "1ms", queue = "100p"}]\n'
        '[[flows]]\nkind = "tcp"\nsrc = "a"\ndst = "b"\nname = "f"\n'
        'app = { kind = "poisson", arrival_rate = 20, until = "10s", '
        'sizes = { file = "sizes.cdf", unit = 1460, percent = true } }\n')
    sc = tl.Scenario.from_toml(tmp_path / "s.toml")
    assert sc.data["flows"][0]["app"]["sizes"] == [[1460, 0], [1460, 0.5], [14600, 1]]
    fl = sc.run().flows
    assert fl["transfer_bytes"].between(1460, 14600).all() and len(fl) > 100


@pytest.mark.parametrize(("app", "field", "text"), [
    ({"kind": "poisson", "load": 0.5}, "flows[0].app.sizes", "required"),
    ({"kind": "poisson", "sizes": "web", "load": 0.5}, "flows[0].app.sizes",
     "websearch, datamining"),
    ({"kind": "poisson", "sizes": "websearch"}, "flows[0].app.load", "exactly one"),
    ({"kind": "poisson", "sizes": "websearch", "load": 0.5, "arrival_rate": 3},
     "flows[0].app.load", "exactly one"),
    ({"kind": "poisson", "sizes": "websearch", "load": -1}, "flows[0].app.load", "above 0"),
    ({"kind": "poisson", "sizes": [[100, 0.5], [50, 1]], "load": 0.5},
     "flows[0].app.sizes[1]", "must not decrease"),
    ({"kind": "poisson", "sizes": "websearch", "load": 0.5, "until": "20s"},
     "flows[0].app.until", "after the end of the run"),
    ({"kind": "poisson", "sizes": "websearch", "load": 0.5, "size": 10},
     "flows[0].app.size", "app.sizes"),
    ({"kind": "transfer", "size": 10, "load": 0.5}, "flows[0].app.load", "only a poisson"),
])
def test_bad_workloads_are_refused_by_field(app: dict, field: str, text: str) -> None:
    data = {"duration": "10s", "hosts": ["a", "b"],
            "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "1ms", "queue": "100p"}],
            "flows": [{"kind": "tcp", "src": "a", "dst": "b", "app": app}]}
    with pytest.raises(tl.ScenarioError) as e:
        tl.Scenario(data).check()
    assert e.value.path == field and text in str(e.value)


def test_fct_summary_by_size_class() -> None:
    import pandas as pd

    flows = pd.DataFrame({
        "transfer_bytes": [1000, 2000, 50_000_000, 0, 500_000],
        "completion_time_s": [0.1, 0.3, math.nan, 5.0, 1.0],
        "slowdown": [2.0, 4.0, math.nan, math.nan, 1.5],
    })
    s = tl.fct_summary(flows)
    assert list(s["size_class"]) == ["0-100kB", "100kB-10MB", ">10MB"]
    assert list(s["flows"]) == [2, 1, 1] and list(s["finished"]) == [2, 1, 0]
    assert s["fct_mean"][0] == pytest.approx(0.2)
    assert s["slowdown_p50"][0] == pytest.approx(3.0)
    assert math.isnan(s["fct_mean"][2])
    whole = tl.fct_summary(flows, bins=None)
    # The 99th percentile of 1.5, 2 and 4: 2 + 0.98 x (4 - 2).
    assert whole["flows"][0] == 4 and whole["slowdown_p99"][0] == pytest.approx(3.96)


def test_the_text_table_of_a_large_workload_shows_its_ends() -> None:
    net, srcs, d = dumbbell()
    net.tcp(srcs, d, name="w", app=tl.Poisson(sizes=[(1460, 0), (1460, 1)], arrival_rate=20,
                                                until="10s"))
    res = net.run(duration="12s", seed=1)
    n = len(res.flows)
    assert n > 100
    lines = res.table().splitlines()
    rows = lines[lines.index("flows:") + 2:lines.index("links:") - 1]
    assert len(rows) == 35 + 1 + 5  # the first 35, "(k more)", the last 5
    assert rows[0].split()[0] == "w0" and rows[-1].split()[0] == f"w{n - 1}"
    assert rows[35].split()[:2] == [f"({n - 40:,}", "more)"]
    full = res.table(max_rows=None).splitlines()
    assert len(full) == len(lines) + n - 41
