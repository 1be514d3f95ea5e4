"""Fuzzing: random and mutated scenario files and builder calls never end in a traceback.

The fuzzer (tests/fuzz_scenarios.py) runs in a child process with a cap on
its address space, so that a crash (an abort, a segfault) or a runaway
allocation shows up here as the child's exit status, not as the end of the
test session. Each case may be accepted and run (briefly), refused with a
ScenarioError, stopped by the memory budget or by its wall-clock alarm;
anything else fails the test, with the fuzzer's tracebacks in the message.
"""

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

FUZZER = Path(__file__).resolve().parent / "fuzz_scenarios.py"


def limit_memory() -> None:
    cap = 6 << 30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def test_a_thousand_mutated_scenarios_and_builder_calls_give_no_traceback():
    seed = os.environ.get("TCPLAB_FUZZ_SEED", "1")
    r = subprocess.run([sys.executable, str(FUZZER), "--seed", seed, "--cases", "1200",
                        "--cli", "30"], capture_output=True, text=True, timeout=600,
                       preexec_fn=limit_memory)
    assert r.returncode in (0, 1), f"the fuzzer crashed ({r.returncode}):\n{r.stderr[-4000:]}"
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    assert summary["unexpected"] == 0, r.stderr[-8000:]
    outcomes = summary["outcomes"]
    assert sum(v for k, v in outcomes.items() if k != "cli") == 1200
    assert outcomes["cli"] == 30
    # Both ways out are exercised: some cases run, most are refused.
    assert outcomes.get("ran", 0) >= 20 and outcomes.get("refused", 0) >= 600
