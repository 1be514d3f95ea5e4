"""bench/ns2_vegas_replay.py's transcription of tcp-vegas.cc, on tcplab's packets.

The bench script also replays ns-2's own trace (docs/validation.md); here
tcplab's ns2 profile alone is replayed, so that a change to its Vegas that
leaves ns-2's rules shows without ns-2 installed.
"""

import importlib.util
import pathlib
import sys
from collections import Counter

import pytest

BENCH = pathlib.Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
spec = importlib.util.spec_from_file_location("bench_ns2_vegas_replay",
                                              BENCH / "ns2_vegas_replay.py")
replay = importlib.util.module_from_spec(spec)
spec.loader.exec_module(replay)


def disagreements(c: Counter) -> int:
    return sum(v for k, v in c.items() if k.startswith(("predicted,", "in the trace")))


def test_the_transcription_resends_on_the_third_duplicate_and_stretches_the_timeout():
    m = replay.VegasModel()
    for k in range(4):
        m.send(0.0, k)
    # The ACK of 0 at 100 ms starts the estimator (sa = 8 x 0.1, sd = 0.1:
    # 150 ms) and, 0's send time being 0 (ns-2's firstsent_), gives no sample.
    assert m.ack(0.1, 0) is None
    assert m.timeout == pytest.approx(0.15)
    # 1 is lost: two duplicates 10 ms later find it 110 ms old, not overdue;
    # the third resends it and stretches the timeout by 9/8.
    assert m.ack(0.11, 0) is None and m.ack(0.111, 0) is None
    assert m.ack(0.112, 0) == ("duplicate 3", 1)
    assert m.timeout == pytest.approx(0.15 * 9 / 8)


def test_tcplab_resends_where_tcp_vegas_cc_would_on_its_own_packets():
    events = replay.tcplab_events("every", 0.05, 1, 120.0)
    ring = replay.replay(events)
    agreed = sum(v for k, v in ring.items() if k.startswith("agreed"))
    assert agreed > 200
    # A few borderline checks can flip: the capture times a segment's start
    # onto the wire, not its send (docs/validation.md).
    assert disagreements(ring) <= 0.02 * agreed
    # Without ns-2's ring of send counts the same packets disagree more.
    assert disagreements(replay.replay(events, ring=False)) > 2 * disagreements(ring) + 5
