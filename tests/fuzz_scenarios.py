"""A seeded fuzzer of scenario files and builder calls (run by tests/test_fuzz.py).

    python tests/fuzz_scenarios.py --seed 1 --cases 1200 [--cli 40]

Each case makes a scenario three ways, from a pool of valid starting points
(the examples and the presets' scenarios):
- text: a TOML file with bytes flipped, deleted, inserted or repeated, and
  tokens that break parsers (NaN, 1e400, deep brackets, NUL, UTF-16);
- data: a valid scenario with random fields set to hostile values (wrong
  types, out of range, huge, negative, nested), deleted or unknown;
- builder: ``tl.Network`` calls with random values (numpy scalars,
  ``Decimal``, bytes, objects, strings with and without units).
Then it checks the scenario, and runs it when it is accepted, with a short
duration, a small memory budget and a wall-clock alarm, so that no case can
hang or take the machine's memory.

The only outcomes allowed: accepted (and run), ``ScenarioError``,
``MemoryError`` (the budget, during the run) or the alarm. Anything else is
printed with its traceback and counted, and so is a ``ScenarioError`` whose
message shows a user Rust's or serde's words (``expected f64``, ``struct
LinkSpec``, ``invalid type:``; see ``RUST_WORDS``); the summary is one JSON
line. A
crash (abort, segfault) ends the process with a signal, which the test sees.
``--cli N`` also runs N of the text cases through ``tcplab check`` in a
subprocess: exit 0 or 2, and never a traceback on stderr.
"""

from __future__ import annotations

import argparse
import copy
import decimal
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

import numpy as np
import tcplab as tl

ROOT = Path(__file__).resolve().parent.parent


#: Words of Rust's and serde's that no message may show a user: Rust's type
#: names (``u64``, ``f64``, ``struct LinkSpec``, ``Option``) and serde's
#: phrases around them (``invalid type:``, ``a sequence``, ``expected
#: value``). A message says what is allowed in the user's words instead
#: (``expected a whole number of 0 or more``, ``a list``, ``a table``).
RUST_WORDS = re.compile(
    r"\b(?:[ui](?:8|16|32|64|128|size)|f32|f64)\b|\bstruct [A-Z]\w*|\benum [A-Z]\w*|"
    r"\bOption\b|\bVec<|\bsequence\b|invalid type:|invalid value:|invalid length|\bnewtype\b|"
    r"\bidentifier\b|expected value")


class Alarm(Exception):
    """The case's wall-clock allowance ran out."""


def _alarm(*_: Any) -> None:
    raise Alarm


# ---- starting points -----------------------------------------------------------------


def seeds() -> list[tuple[str, dict[str, Any]]]:
    """(TOML text, data) of valid scenarios."""
    import tomllib

    out = []
    for p in sorted((ROOT / "examples").glob("*.toml")):
        text = p.read_text()
        data = tomllib.loads(text)
        if "scenario" in data:  # a study file: its scenario
            continue
        out.append((text, data))
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="10Mbps", delay="5ms", loss=tl.GilbertElliott(0.1, "1s", "10ms"))
    net.link(r, b, rate="2Mbps", delay="1ms", queue="20KiB", loss=tl.DropList([3, 5]))
    net.tcp(a, b, cc=tl.Vegas(alpha=2), app=tl.Transfer("200KB"), sack=True, timestamps=True)
    net.tcp(a, b, cc="bbr", app=tl.OnOff([("0.1s", "0.5s")]), profile="linux")
    net.udp(a, b, rate="500kbps", count=100)
    data = net.scenario(duration="2s", trace=["cwnd", "queue", "drops", "events"],
                        interval="0.5s").data
    out.append((toml_of(data), data))
    return out


def toml_of(data: Any, prefix: str = "") -> str:
    """A small TOML writer for scenario data (tables of scalars, lists, inline tables)."""
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        return json.dumps(str(v))

    lines, tables = [], []
    for k, v in data.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            tables.append((k, v))
        else:
            lines.append(f"{k} = {value(v)}")
    for k, items in tables:
        for item in items:
            lines.append(f"\n[[{k}]]")
            lines += [f"{kk} = {value(vv)}" for kk, vv in item.items()]
    return "\n".join(lines) + "\n"


# ---- mutations -------------------------------------------------------------------------

TOKENS = ["=", "[", "]", "[[", "{", "}", '"', "'", ",", ".", "\n", "nan", "inf", "-inf",
          "1e400", "-1", "0", "18446744073709551616", "true", "1979-05-27T07:32:00Z",
          "\x00", "é", "\u202e", "[" * 300, "{a={b={c=1}}}", "\"10Mbps\"", "\"-5ms\"",
          "\"1e30B\"", "\"2e19bps\"", "0x10", "1_000", "+inf", "\"\"", "\"1ns\""]


def mutate_text(rng: random.Random, text: str) -> bytes:
    """A TOML text with a few random byte-level mutations."""
    b = bytearray(text.encode())
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        at = rng.randrange(len(b) + 1)
        if op < 0.25 and b:
            b[min(at, len(b) - 1)] = rng.randrange(256)
        elif op < 0.45:
            del b[at:at + rng.randint(1, 20)]
        elif op < 0.8:
            b[at:at] = rng.choice(TOKENS).encode()
        elif op < 0.9:
            line = b.split(b"\n")
            i = rng.randrange(len(line))
            line.insert(i, line[i])
            b = bytearray(b"\n".join(line))
        else:
            b = b[:at]
    if rng.random() < 0.03:
        return bytes(b).decode("utf-8", "replace").encode("utf-16")
    return bytes(b)


class Opaque:
    """An object no scenario field takes."""


def hostile(rng: random.Random) -> Any:
    """A value for any field."""
    pool: list[Any] = [
        None, True, False, 0, 1, -1, 2, 7, 2**31, 2**63, 2**64 + 1, -2**70, 0.0, -0.0, 0.5,
        1e-300, 1e300, float("nan"), float("inf"), -float("inf"), "", " ", "x", "10Mbps",
        "0bps", "-5ms", "45ms", "1e30B", "2e19bps", "100p", "0p", "64KiB", "nan", "inf",
        "1ns", "1000000s", "newreno", "python", "a", "r", "b", "é" * 3, [], [1, 2], [[1]],
        {}, {"model": "uniform"}, {"model": "uniform", "per": 2},
        {"name": "vegas", "alpha": -1}, {"kind": "transfer"}, {"kind": "onoff",
                                                               "schedule": [[2, 1]]},
        np.int64(3), np.float32(0.25), decimal.Decimal("1.5"), b"bytes", Opaque(), 1 + 1j,
        {"a": {"b": {"c": {"d": [1, {"e": None}]}}}},
    ]
    return copy.deepcopy(rng.choice(pool))


def plausible(rng: random.Random) -> Any:
    """A value that some field takes: mutations with these get past the checks."""
    return copy.deepcopy(rng.choice([
        "1Mbps", "100Mbps", "56kbps", "1ms", "0s", "200ms", "3s", 0.01, 0.5, 0, 1, 2, 3, 10,
        "newreno", "cubic", "bbr", "vegas", "westwood", "westwoodplus", "petra", "tahoe",
        "reno", "sack", "linux", "ns3", "paper", True, False, "1KiB", "10p", "1p", "536B",
        {"model": "uniform", "per": 0.1}, {"model": "ber", "ber": 1e-5},
        {"kind": "transfer", "size": "50KB"}, ["cwnd", "queue"], ["drops", "events"],
        {"kind": "codel", "device_queue": 1}, {"kind": "red", "device_queue": 2, "ecn": True},
        {"kind": "fq_codel", "device_queue": 3}, {"kind": "pie", "device_queue": 1},
        {"kind": "droptail", "limit": "10p", "device_queue": 2},
    ]))


def paths_of(data: Any, prefix: tuple = ()) -> list[tuple]:
    """Every (key or index) path into nested scenario data."""
    out = [prefix] if prefix else []
    if isinstance(data, dict):
        for k, v in data.items():
            out += paths_of(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += paths_of(v, (*prefix, i))
    return out


FIELDS = ["rate", "delay", "queue", "mtu", "loss", "per", "cc", "mss", "delayed_ack",
          "rcv_buf", "initial_cwnd", "min_rto", "max_rto", "app", "size", "count", "start",
          "stop", "duration", "seed", "run", "interval", "trace", "name", "recovery",
          "profile", "sack", "dupthresh", "schedule", "model", "bogus", "memory_budget",
          "reverse_queue", "device_queue"]


def mutate_data(rng: random.Random, data: dict[str, Any]) -> dict[str, Any]:
    """Scenario data with random fields set, deleted or added."""
    d = copy.deepcopy(data)
    value = plausible if rng.random() < 0.5 else hostile
    for _ in range(rng.randint(1, 3)):
        paths = paths_of(d)
        if not paths:
            break
        path = rng.choice(paths)
        parent: Any = d
        for k in path[:-1]:
            parent = parent[k]
        key = path[-1]
        op = rng.random()
        if op < 0.6:
            parent[key] = value(rng)
        elif op < 0.75 and isinstance(parent, dict):
            del parent[key]
        elif op < 0.9 and isinstance(parent, dict):
            parent[rng.choice(FIELDS)] = value(rng)
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
    return d


def builder_case(rng: random.Random) -> tl.Scenario:
    """A scenario made by ``tl.Network`` calls with random values."""
    def v(valid: Any) -> Any:
        return valid if rng.random() < 0.7 else hostile(rng)

    net = tl.Network()
    a, r = net.host("a"), net.router("r")
    net.host(v("b"))
    net.link(a, r, rate=v("10Mbps"), delay=v("5ms"), queue=v("100p"), mtu=v(1500),
             loss=v(tl.Uniform(0.01)))
    net.link(r, "b", rate=v(np.int64(2_000_000)), delay=v(decimal.Decimal("0.001")),
             reverse_loss=v(None))
    if rng.random() < 0.5:
        net.udp(a, "b", rate=v("1Mbps"), size=v("500B"), start=v(0), stop=v(None),
                count=v(None))
    else:
        net.tcp(a, "b", cc=v("cubic"), app=v(tl.Bulk()), mss=v(None), delayed_ack=v(2),
                rcv_buf=v(None), initial_cwnd=v(None), min_rto=v(None), sack=v(None))
    return net.scenario(duration=v("1s"), seed=v(1), interval=v(None), trace=v(None),
                        memory_budget="64MiB")


# ---- running a case ---------------------------------------------------------------------


def attempt(make: Any) -> str:
    """Check and, if accepted, run; the outcome's name, or raise what is not allowed."""
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        sc = make()
        sc.check()
        # A short run with little memory: bounded whatever the case says.
        short = sc.replace(duration="0.5s", memory_budget="64MiB")
        short.run()
        return "ran"
    except tl.ScenarioError as e:
        if RUST_WORDS.search(str(e)):
            raise AssertionError(f"a message in Rust's words: {e}") from None
        return "refused"
    except MemoryError:
        return "memory"
    except Alarm:
        return "alarm"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cases", type=int, default=1200)
    p.add_argument("--cli", type=int, default=0)
    a = p.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(a.seed)
    starts = seeds()
    outcomes: dict[str, int] = {}
    bad: list[str] = []
    tmp = Path(tempfile.mkdtemp(prefix="tcplab-fuzz-"))
    cli_files: list[Path] = []
    for i in range(a.cases):
        kind = ("text", "data", "builder")[i % 3]
        if kind == "text":
            text, _ = rng.choice(starts)
            path = tmp / f"case{i}.toml"
            path.write_bytes(mutate_text(rng, text))
            if len(cli_files) < a.cli:
                cli_files.append(path)

            def make(path: Path = path) -> tl.Scenario:
                return tl.load(path)
        elif kind == "data":
            _, data = rng.choice(starts)
            mutated = mutate_data(rng, data)

            def make(mutated: dict[str, Any] = mutated) -> tl.Scenario:
                return tl.Scenario(mutated)
        else:
            state = rng.random()

            def make(state: float = state) -> tl.Scenario:
                return builder_case(random.Random(state))
        try:
            out = attempt(make)
        except Exception:  # noqa: BLE001 - what the fuzzer is looking for
            out = "UNEXPECTED"
            bad.append(f"case {i} ({kind}):\n{traceback.format_exc()}")
        outcomes[out] = outcomes.get(out, 0) + 1
    for path in cli_files:
        r = subprocess.run([sys.executable, "-m", "tcplab.cli", "check", str(path)],
                           capture_output=True, text=True, timeout=60)
        ok = r.returncode in (0, 2) and "Traceback" not in r.stderr
        if r.returncode == 2:
            ok = ok and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
            ok = ok and not RUST_WORDS.search(r.stderr)
        outcomes["cli"] = outcomes.get("cli", 0) + 1
        if not ok:
            bad.append(f"cli {path.name}: exit {r.returncode}\n{r.stderr}")
    for b in bad[:20]:
        print(b, file=sys.stderr)
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()
    print(json.dumps({"outcomes": outcomes, "unexpected": len(bad)}))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
