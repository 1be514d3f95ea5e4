"""How a scenario crosses into the core: plain data read straight from the
Python objects, anything else as JSON text, with the same outcome either way."""

from __future__ import annotations

import json
import pathlib
import random
import sys

import pytest
import tcplab as tl
from tcplab import _core, scenario_io

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fuzz_scenarios import mutate_data, seeds  # noqa: E402


def outcome(arg: object) -> tuple[str, str]:
    """What the core's check makes of ``arg``: the effective scenario or the error."""
    try:
        return "ok", _core.check_json(arg)
    except (tl.ScenarioError, ValueError, TypeError, OverflowError) as e:
        return type(e).__name__, str(e)


def via_text(data: dict) -> tuple[str, str]:
    """The JSON path: the data encoded by tcplab, then parsed by the core."""
    try:
        text = scenario_io.scenario_json(data)
    except tl.ScenarioError as e:
        return "ScenarioError", str(e)
    return outcome(text)


@pytest.fixture
def encodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the calls of the JSON encoding the core falls back to."""
    calls: list[int] = []
    real = scenario_io.scenario_json

    def counted(data: dict) -> str:
        calls.append(1)
        return real(data)

    monkeypatch.setattr(scenario_io, "scenario_json", counted)
    return calls


def test_plain_data_is_read_without_json_and_checks_as_its_text(encodes: list[int]) -> None:
    for _, data in seeds():
        text = json.dumps(data)
        assert outcome(data) == outcome(text)
    assert encodes == []


def test_a_run_from_plain_data_gives_the_bytes_of_a_run_from_its_text(encodes: list[int]) -> None:
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="10Mbps", delay="5ms", queue={"kind": "red", "min_th": 5, "max_th": 15})
    net.link(r, b, rate="2Mbps", delay="20ms", loss=tl.Uniform(0.01))
    net.tcp(a, b, cc=tl.Cubic(beta=0.8), ecn=True)
    net.tcp(a, b, cc="westwoodplus", app=tl.Transfer("300KB", start="0.5s"), profile="linux")
    data = net.scenario(duration="5s", seed=4, trace=["cwnd"]).data

    def run(arg: object) -> tuple:
        raw = _core.run_json(arg)
        tables = {t: {c: (kind, v if kind == "str" else v.tobytes())
                      for c, (kind, v) in cols.items()}
                  for t, cols in raw["tables"].items()}
        return tables, [(n, t, x, y) for n, t, x, y in raw["series"]], raw["scenario"].json()

    assert run(data) == run(json.dumps(data))
    assert encodes == []


@pytest.mark.parametrize(("odd", "encoded"), [
    pytest.param(lambda np: {"seed": np.int64(3)}, True, id="numpy int"),
    pytest.param(lambda np: {"duration": np.float64(2.0)}, True, id="numpy float"),
    pytest.param(lambda np: {"seed": 2**64 + 1}, True, id="int beyond 64 bits"),
    pytest.param(lambda np: {"duration": float("nan")}, True, id="NaN"),
    pytest.param(lambda np: {"interval": float("inf")}, True, id="infinity"),
    pytest.param(lambda np: {"name": pathlib.Path("x/y")}, True, id="path"),
    pytest.param(lambda np: {"links": [{1: "a"}]}, True, id="key not a string"),
    # Plain, but refused: the JSON path words the error.
    pytest.param(lambda np: {"seed": True}, True, id="bool for an int"),
    # Plain: a tuple reads as a list does.
    pytest.param(lambda np: {"trace": ("cwnd", "queue")}, False, id="tuple"),
])
def test_data_that_is_not_plain_takes_the_json_path_to_the_same_outcome(
        odd, encoded: bool, encodes: list[int]) -> None:
    np = pytest.importorskip("numpy")
    _, base = seeds()[-1]
    data = {**base, **odd(np)}
    got = outcome(data)
    assert len(encodes) == int(encoded)
    assert got == via_text(data)


def test_hostile_data_checks_alike_read_directly_or_as_text() -> None:
    rng = random.Random(7)
    pool = seeds()
    for _ in range(1000):
        _, data = rng.choice(pool)
        data = mutate_data(rng, data)
        assert outcome(data) == via_text(data)
