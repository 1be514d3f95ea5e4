"""bench/ns3_trace.py's reading of an ns-3 trace, on a hand-written one (no ns-3 here)."""

import pytest


def test_states_timeouts_and_thresholds_are_read_from_the_trace(bench_script) -> None:  # noqa: ANN001
    m = bench_script("ns3_trace")
    s = 1_000_000_000
    # Disorder at 1 s, Recovery at 1.1 s, Open at 1.5 s; a timeout at 3 s
    # (the RTO doubles, ssthresh 10 segments, Loss), the next sample at
    # 3.1 s (back to 1 s: not a timeout), a second timeout at 5 s
    # (ssthresh unchanged), Open at 6 s; the run ends at 10 s.
    trace = "\n".join([
        f"{int(0.1 * s)} rto 1000000000 headretx 0 inflight 0 head 1 sacked 0 lost 0 retrans 0",
        f"{1 * s} state 1", f"{int(1.1 * s)} state 3", f"{int(1.5 * s)} state 0",
        f"{3 * s} rto 2000000000 headretx 0 inflight 0 head 9 sacked 0 lost 0 retrans 0",
        f"{3 * s} ssthresh 14480", f"{3 * s} state 4",
        f"{int(3.1 * s)} rto 1000000000 headretx 0 inflight 0 head 9 sacked 0 lost 0 retrans 0",
        f"{5 * s} rto 2000000000 headretx 0 inflight 0 head 9 sacked 0 lost 0 retrans 0",
        f"{6 * s} state 0", f"{6 * s} tx 9 1448", f"{6 * s} ack 10",
    ])
    out = m.summarize_ns3(trace, end=10.0)
    assert out["timeouts"] == 2
    assert out["fast recoveries"] == 1
    assert out["ssthresh after timeouts (B)"] == [14480, None]
    assert out["entries"] == {"Open": 3, "Disorder": 1, "Recovery": 1, "Loss": 1}
    spent = out["seconds in state"]
    assert spent["Open"] == pytest.approx(1.0 + 1.5 + 4.0)
    assert spent["Disorder"] == pytest.approx(0.1)
    assert spent["Recovery"] == pytest.approx(0.4)
    assert spent["Loss"] == pytest.approx(3.0)
    assert sum(spent.values()) == pytest.approx(10.0)
