"""The results tables' columns and dtypes come from the core's one declaration per column."""

import pandas as pd
import tcplab as tl
from tcplab.schema import columns, dtypes


def _run() -> tl.Results:
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="10Mbps", delay="1ms")
    net.link(r, b, rate="1Mbps", delay="5ms", queue=10)
    net.tcp(a, b)
    net.udp(a, b, rate="2Mbps", start="0.1s")
    return net.run(duration="1s")


def test_the_frames_have_the_dtypes_of_the_core_s_metadata():
    res = _run()
    for table, frame in (("flows", res.flows), ("links", res.links)):
        want = dtypes(table)
        assert list(want) == [c["name"] for c in columns(table)]
        got = {name: frame[name].dtype for name in frame.columns}
        assert got == {name: pd.Series([], dtype=t).dtype for name, t in want.items()}, table


def test_every_column_has_a_known_type_unit_and_meaning():
    for table in ("flows", "links"):
        for c in columns(table):
            assert c["kind"] in ("int", "float", "str"), c
            assert c["meaning"], c
            assert isinstance(c["unit"], str), c
