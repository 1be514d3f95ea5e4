"""Cost of a congestion controller written in Python, per ACK.

Runs the same NewReno scenario with the built-in Reno growth and with the
Python AIMD of examples/aimd.py (identical behaviour, checked), and reports
the extra wall time per ACK processed.

    python bench/pycc.py [--duration 120]
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--duration", default="120s")
    p.add_argument("--repeat", type=int, default=9, help="runs per side; the fastest counts")
    a = p.parse_args()
    spec = importlib.util.spec_from_file_location("aimd", ROOT / "examples" / "aimd.py")
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)

    def best(cc_factory):
        runs = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            res = ex.westwood_path(cc_factory()).run(duration=a.duration, seed=1)
            runs.append((time.perf_counter() - t0, res))
        return min(runs, key=lambda r: r[0])

    t_builtin, r1 = best(lambda: "newreno")
    t_python, r2 = best(ex.Aimd)
    f1, f2 = r1.flow("tcp0"), r2.flow("tcp0")
    assert f1["delivered_bytes"] == f2["delivered_bytes"], "the two must behave identically"
    acks = int(f2["ack_packets"] - f2["acks_lost"])
    print(f"scenario: Westwood path, PER 0.005, {a.duration}, {acks:,} ACKs at the sender")
    print(f"built-in reno growth   {t_builtin * 1e3:8.1f} ms")
    print(f"python AIMD            {t_python * 1e3:8.1f} ms")
    print(f"python cost per ACK    {(t_python - t_builtin) / acks * 1e6:8.2f} us "
          f"(x{t_python / t_builtin:.1f} the built-in run)")


if __name__ == "__main__":
    main()
