"""Messages in the user's words (issue 52, item 17).

Each names the field, the value and what is allowed, in seconds, bits per
second, packets or bytes: never a Rust type (``f64``, ``struct LinkSpec``)
nor serde's phrasing (``invalid type:``). tests/fuzz_scenarios.py checks the
same on generated scenarios (its ``RUST_WORDS``).
"""

import subprocess
import sys

import pytest
import tcplab as tl

NAN = float("nan")


def scenario(**changes):
    """A small valid scenario's data with fields replaced (``links0`` and ``flows0`` update
    the first link and flow)."""
    d = {"duration": "1s", "hosts": ["a", "b"],
         "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "1ms"}],
         "flows": [{"kind": "tcp", "src": "a", "dst": "b"}]}
    d["links"][0].update(changes.pop("links0", {}))
    d["flows"][0].update(changes.pop("flows0", {}))
    d.update(changes)
    return d


def refused(data) -> tl.ScenarioError:
    with pytest.raises(tl.ScenarioError) as e:
        tl.Scenario(data).check()
    return e.value


@pytest.mark.parametrize("data, path, message", [
    # NaN where a number belongs: "invalid type: string \"NaN\", expected f64" before.
    (scenario(links0={"queue": {"kind": "red", "max_p": NAN}}), "links[0].queue",
     "red: max_p: expected a finite number, got NaN"),
    (scenario(flows0={"cc": {"name": "cubic", "c": NAN}}), "flows[0].cc.c",
     "expected a finite number, got NaN"),
    (scenario(flows0={"app": {"kind": "poisson", "sizes": "websearch", "load": NAN}}),
     "flows[0].app.load", "expected a finite number, got NaN"),
    (scenario(seed=NAN), "seed", "expected a whole number of 0 or more, got NaN"),
    # Rust's integer and struct names.
    (scenario(links0={"mtu": "r"}), "links[0].mtu",
     'expected a whole number from 0 to 4294967295, got "r"'),
    (scenario(flows0={"dupthresh": -1}), "flows[0].dupthresh",
     "expected a whole number from 0 to 4294967295, got -1"),
    (scenario(links0={"loss": NAN}), "links[0].loss", "expected a table, got NaN"),
    (scenario(links=[3]), "links[0]", "expected a table, got 3"),
    (scenario(hosts={"a": 1}), "hosts", "expected a list, got a table"),
    # A name-only field given a number: "expected value" before.
    (scenario(links0={"outage": 1}), "links[0].outage",
     "expected one of 'hold', 'drop', got 1"),
    (scenario(links0={"jitter": {"dist": 3, "low": "1ms", "high": "2ms"}}),
     "links[0].jitter.dist",
     "expected one of 'uniform', 'normal', 'exponential', 'pareto', got 3"),
])
def test_type_mismatches_are_worded_for_the_user(data, path, message):
    e = refused(data)
    assert e.path == path
    assert str(e) == f"{path}: {message}"


def test_a_queue_limit_too_large_says_so_and_what_is_allowed():
    # "'8PiB' is not a queue limit" before: PiB was no unit. 8 PiB is the
    # largest size (2^53 bytes), and a limit of it is one.
    assert tl.Scenario(scenario(links0={"queue": {"kind": "droptail", "limit": "8PiB"}})).check()
    e = refused(scenario(links0={"queue": "9PiB"}))
    assert e.path == "links[0].queue"
    assert "is too large (allowed: 0 to 2^53 bytes (8 PiB)); a queue limit is packets" in str(e)
    e = refused(scenario(links0={"queue": "8EiB"}))
    assert str(e).startswith("links[0].queue: '8EiB': unknown unit 'EiB' for a queue limit "
                             "(allowed: p or packets, or a size in B, bytes")
    e = refused(scenario(links0={"queue": "1e30p"}))
    assert str(e) == ("links[0].queue: '1e30p': a queue limit in packets must be a whole number "
                      "from 0 to 2^53, got 1e30")


def test_red_with_one_threshold_beyond_the_others_default_is_refused():
    # min_th = 20 alone ran with the default max_th of 15 below it, where
    # giving both was refused.
    e = refused(scenario(links0={"queue": {"kind": "red", "min_th": 20}}))
    assert e.path == "links[0].queue"
    assert str(e) == ("links[0].queue: max_th: the default 15 is below min_th (20); give max_th "
                      "too, at least min_th")
    e = refused(scenario(links0={"queue": {"kind": "red", "max_th": 3}}))
    assert "min_th: the default 5 is above max_th (3)" in str(e)
    assert tl.Scenario(scenario(links0={"queue": {"kind": "red", "min_th": 10}})).check()


def test_a_host_behind_a_dead_end_router_is_not_connected_not_a_loop():
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    r1, r2 = net.router("r1"), net.router("r2")
    net.link(a, r1, rate="10Mbps", delay="1ms")
    net.link(r2, b, rate="10Mbps", delay="1ms")
    net.tcp(a, b)
    with pytest.raises(tl.RoutingError) as e:
        net.scenario(duration="1s").check()
    assert str(e.value) == "flows[0]: no route from 'a' to 'b' (they are not connected)"


CDF_SCENARIO = """\
duration = "2s"
hosts = ["a", "b"]
[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "10ms"
[[flows]]
kind = "tcp"
src = "a"
dst = "b"
app = {{ kind = "poisson", load = 0.1, sizes = {{ file = "s.cdf", {option} }} }}
"""


@pytest.mark.parametrize("option, message", [
    # A bare TypeError before.
    ("unit = [1]", "flows[0].app.sizes.unit: [1] is not a number of bytes above 0"),
    # Reported as "not valid TOML" before.
    ('unit = "x"', 'flows[0].app.sizes.unit: "x" is not a number of bytes above 0'),
    ("unit = 0", "flows[0].app.sizes.unit: 0 is not a number of bytes above 0"),
    # Taken as true before.
    ('percent = "false"', 'flows[0].app.sizes.percent: "false" is not true or false'),
])
def test_cdf_file_options_are_checked_by_name(tmp_path, option, message):
    (tmp_path / "s.cdf").write_text("1460 0\n14600 1\n")
    p = tmp_path / "s.toml"
    p.write_text(CDF_SCENARIO.format(option=option))
    with pytest.raises(tl.ScenarioError) as e:
        tl.load(p)
    assert str(e.value).startswith(message + " (allowed: ")
    assert e.value.path == message.split(":")[0]
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "check", str(p)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith(f"error: {message}"), r.stderr


def test_read_cdf_checks_its_options():
    with pytest.raises(tl.ScenarioError, match='percent: "false" is not true or false'):
        tl.read_cdf("unused.cdf", percent="false")
    with pytest.raises(tl.ScenarioError, match="unit: -1 is not a number of bytes above 0"):
        tl.read_cdf("unused.cdf", unit=-1)


@pytest.mark.parametrize("value, error", [(NAN, ValueError), (-1, ValueError),
                                          (2.5e4, ValueError), ("x", TypeError)])
def test_a_python_ssthresh_that_is_not_a_byte_count_names_the_hook(value, error):
    class Bad(tl.CongestionControl):
        def on_ack(self, tcb, ack):
            tcb.cwnd += tcb.mss

        def ssthresh(self, tcb, cause):
            return value

    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="10ms", queue="5p")
    net.tcp(a, b, cc=Bad())
    with pytest.raises(error) as e:
        net.run(duration="5s")
    assert str(e.value).startswith(f"ssthresh() of the Python controller {__name__}.test_a_python"
                                   f"_ssthresh_that_is_not_a_byte_count_names_the_hook.<locals>."
                                   f"Bad returned {value!r}; it must return the new ssthresh in "
                                   "bytes, a whole number of 0 or more")


@pytest.mark.parametrize("model, path, message", [
    (tl.GilbertElliott(0.1, "x", "10ms"), "loss.good_time",
     "GilbertElliott.good_time: 'x' is not a duration"),
    (tl.GilbertElliott(1.5, "1s", "10ms"), "loss.bad_loss",
     "GilbertElliott.bad_loss: 1.5 is not a probability (allowed: 0 to 1)"),
    (tl.GilbertElliott(0.1, "1s", 0), "loss.bad_time",
     "GilbertElliott.bad_time: 0 is not longer than 0 s"),
    (tl.GilbertElliott(0.1, "1s", "1s", p_bad=NAN), "loss.p_bad",
     "GilbertElliott.p_bad: nan is not a probability"),
])
def test_stationary_loss_refuses_what_a_scenario_refuses_by_name(model, path, message):
    # A plain ValueError (or ZeroDivisionError) before.
    with pytest.raises(tl.ScenarioError) as e:
        model.stationary_loss()
    assert e.value.path == path and str(e.value).startswith(message)
    assert tl.GilbertElliott(0.1, "1s", "10ms").stationary_loss() == pytest.approx(0.1 / 101)
