"""The path bench/linux_kernel.py carries the kernel's packets across.

The kernel comparison itself needs root and runs in real time (bench/), but
its link model is plain arithmetic, checked here by hand: each link a FIFO
server at its rate with a drop-tail queue of waiting packets, then its
delay, and uniform loss after the last link.
"""

import importlib.util
import pathlib
import random

import pytest

BENCH = pathlib.Path(__file__).resolve().parent.parent / "bench"
spec = importlib.util.spec_from_file_location("bench_linux_kernel", BENCH / "linux_kernel.py")
lk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lk)


def test_a_lone_packet_crosses_the_westwood_path_in_its_serializations_and_delays():
    d = lk.Direction(lk.LINKS, 0.0, random.Random(1))
    # 400 B: 0.32 ms at 10 Mb/s, 45 ms, 1.6 ms at 2 Mb/s, 0.01 ms.
    assert d.due(1.0, 400) == pytest.approx(1.0 + 0.00032 + 0.045 + 0.0016 + 0.00001)
    # The ACKs cross the same links the other way: 52 B at 2 then 10 Mb/s.
    r = lk.Direction(lk.LINKS[::-1], 0.0, random.Random(1))
    assert r.due(0.0, 52) == pytest.approx(0.000208 + 0.00001 + 0.0000416 + 0.045)


def test_a_queue_holds_its_limit_of_waiting_packets_and_drops_the_rest():
    # One link at 8 kb/s (a 1000-B packet takes 1 s), no delay, room for 2
    # waiting: of five packets at once, one is sent, two wait, two are dropped.
    d = lk.Direction([(8000.0, 0.0, 2)], 0.0, random.Random(1))
    due = [d.due(0.0, 1000) for _ in range(5)]
    assert due == [1.0, 2.0, 3.0, None, None]
    assert d.drops_queue == 2
    # Once the first has left the queue (its service began at 0), one more fits.
    assert d.due(0.5, 1000) is None  # at 0.5 s two still wait (starts 1 and 2)
    assert d.due(1.0, 1000) == 4.0  # the second is in service: one waits
    assert d.drops_queue == 3


def test_loss_falls_after_the_last_link_at_the_packet_error_rate():
    d = lk.Direction(lk.LINKS, 1.0, random.Random(1))
    assert [d.due(t * 0.01, 400) for t in range(3)] == [None] * 3
    assert (d.drops_error, d.drops_queue) == (3, 0)
    d = lk.Direction(lk.LINKS, 0.1, random.Random(7))
    lost = sum(d.due(t * 0.01, 400) is None for t in range(10_000))
    assert lost == d.drops_error and 900 < lost < 1100
