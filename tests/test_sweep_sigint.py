"""Ctrl-C of a sweep started from a Python script: one line, then exit as Python's do.

The `tcplab sweep` command's side (one line, exit code 130, no traceback)
is tests/test_sweep_reliability.py's.
"""

import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

SCRIPT = textwrap.dedent('''
    import signal
    import tcplab as tl

    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="1Gbps", delay="5ms")
    net.link(r, b, rate="100Mbps", delay="5ms", name="bottleneck")
    for _ in range(4):
        net.tcp(a, b)
    sweep = tl.Sweep(net.scenario(duration="3000s"),
                     grid={"links.bottleneck.rate": ["100Mbps", "90Mbps"]},
                     seeds=range(1, 6), db="sweep.db")

    if __name__ == "__main__":
        # As a terminal starts it: Ctrl-C raises KeyboardInterrupt even when
        # the tests run with SIGINT ignored (in the background of a shell).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("started", flush=True)
        sweep.run(jobs=2, progress=False)
        print("finished", flush=True)
''')


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_of_a_script_s_sweep_prints_the_line_and_exits_as_python_does(tmp_path):
    (tmp_path / "study.py").write_text(SCRIPT)
    proc = subprocess.Popen([sys.executable, "study.py"], cwd=tmp_path,
                            start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "started\n"
        time.sleep(1.5)  # the workers are computing (each run takes seconds)
        os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the whole group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert out == ""  # stopped: never "finished"
    # Python ends a script whose KeyboardInterrupt went unhandled by SIGINT
    # itself, which a shell reports as exit code 130 (128 + 2).
    assert proc.returncode == -signal.SIGINT, err
    lines = err.splitlines()
    assert re.fullmatch(r"interrupted: \d+ of 10 runs stored; run the same command to "
                        r"resume", lines[0]), err
    # A plain KeyboardInterrupt (not tcplab's subclass, which would exit 1),
    # its traceback short: the script's line, Sweep.run's and run_specs' raise.
    assert lines[-1] == "KeyboardInterrupt", err
    assert lines[1] == "Traceback (most recent call last):"
    frames = [x for x in lines if x.startswith('  File "')]
    assert len(frames) <= 3 and "study.py" in frames[0], err
