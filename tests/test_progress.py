"""Progress of a long run: a callable told the simulated time and the events twice a second,
and `tcplab run`'s line on a terminal (and nowhere else)."""

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
import tcplab as tl

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "westwood_path_newreno.toml"
#: Long enough to take more than a second of wall time on any machine.
LONG = "60000s"


def test_progress_is_told_the_simulated_time_and_the_events():
    seen = []
    res = tl.load(EXAMPLE).run(duration=LONG, progress=lambda s, e: seen.append((s, e)))
    assert len(seen) >= 1
    times, events = zip(*seen, strict=True)
    assert list(times) == sorted(times) and 0 < times[-1] < 60000
    assert list(events) == sorted(events) and events[-1] < res.raw["summary"]["events"]


def test_an_exception_from_progress_stops_the_run():
    class Enough(Exception):
        pass

    def stop(simulated, events):
        raise Enough(f"stopped at {simulated:.0f} s")

    with pytest.raises(Enough, match="stopped at"):
        tl.load(EXAMPLE).run(duration=LONG, progress=stop)


def run_on_a_terminal(*args):
    """`tcplab run` with its stderr on a pseudo-terminal: (exit code, what the terminal got)."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    p = subprocess.Popen([sys.executable, "-m", "tcplab.cli", "run", *args],
                         stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(), out.decode()


def test_tcplab_run_shows_progress_on_a_terminal_only():
    code, shown = run_on_a_terminal(str(EXAMPLE), "--duration", LONG)
    assert code == 0
    lines = [x for x in shown.split("\r") if x.strip()]
    assert any(x.startswith("simulated ") and " of 60,000.0 s (" in x and "M events/s" in x
               for x in lines)
    assert shown.rstrip(" ").endswith("\r")  # the line is erased before the results
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "run", str(EXAMPLE), "--duration",
                        LONG], capture_output=True, text=True)
    assert r.returncode == 0 and "simulated " not in r.stderr  # not a terminal: nothing
