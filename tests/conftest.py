import importlib.util
import math
from pathlib import Path

import pytest
import tcplab as tl


def binomial_bound(n: int, p: float, z: float = 2.576) -> float:
    """Half-width of the ~99% (z=2.576) normal-approximation interval of a Binomial(n, p) count."""
    return z * math.sqrt(n * p * (1 - p)) + 1


@pytest.fixture
def westwood_path():
    """source -(10 Mb/s, 45 ms)- router -(2 Mb/s, 10 us)- sink, the Westwood papers' path."""

    def make(loss=None, queue="100p"):
        net = tl.Network()
        a, r, b = net.host("a"), net.router("r"), net.host("b")
        net.link(a, r, rate="10Mbps", delay="45ms")
        net.link(r, b, rate="2Mbps", delay="10us", queue=queue, loss=loss, name="bottleneck")
        return net, a, r, b

    return make


@pytest.fixture(scope="session")
def mahimahi_traces():
    """The folder of mahimahi's traces, found as tcplab finds it (tcplab.traces.resolve:
    TCPLAB_TRACES, the folder of `tcplab traces download`, ../shared/traces/mahimahi, where
    CI has them); the test is skipped without them."""
    from tcplab import traces

    folder = traces.resolve()
    if folder is None or traces.missing_files(folder):
        pytest.skip(f"no mahimahi traces {traces.looked_in()} (tcplab traces download)")
    return folder


@pytest.fixture
def bench_script():
    """Loads a script of bench/ by its name (``bench_script("ns3_trace")``) as a module."""

    def load(name):
        path = Path(__file__).resolve().parent.parent / "bench" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    return load
