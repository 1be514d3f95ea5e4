"""A/B speed check: this checkout's build against the baseline build, interleaved.

The loop figures of `bench/dumbbell.py` (core ns per packet, N = 1 to 10,000)
and `bench/tcp.py` (packets per wall second: single, shared, traced) for two
builds of tcplab, every run a fresh process, the two builds alternating run
by run so that a slow spell of this noisy VM hits both alike. Each side's
fastest run is reported, with the ratio new / base (above 1 = slower).

The baseline build is the commit docs/performance.md names for its baseline
table; build it once into a directory of its own (a git worktree and a wheel,
nothing inside this checkout):

    python bench/ab.py --make-base b66e96c /tmp/tcplab-base
    python bench/ab.py --base /tmp/tcplab-base [--repeat 5] [--flows 1,10,100,1000,10000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def make_base(commit: str, target: Path) -> None:
    """Build ``commit`` as a wheel in a temporary worktree and install it into ``target``."""
    root = HERE.parent
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(root), "worktree", "add", "--detach", str(tree), commit],
                       check=True)
        try:
            maturin = shutil.which("maturin") or shutil.which("maturin", path=str(
                Path(sys.executable).parent))
            if maturin is None:
                sys.exit("maturin not found: pip install maturin")
            # A target directory of its own, kept between builds of a base.
            env = {**os.environ, "CARGO_TARGET_DIR": str(target.parent / ".tcplab-ab-target")}
            subprocess.run([maturin, "build", "--release", "-o", str(Path(tmp) / "wheels")],
                           cwd=tree, check=True, env=env)
            wheel = next((Path(tmp) / "wheels").glob("*.whl"))
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                            "--target", str(target), str(wheel)], check=True)
        finally:
            subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)],
                           check=True)
    (target / "COMMIT").write_text(commit + "\n")
    print(f"baseline {commit} installed in {target}")


def child(base: str | None, script: str, args: list[str]) -> dict:
    env = dict(os.environ)
    if base:
        env["PYTHONPATH"] = base + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, str(HERE / script), *args], capture_output=True,
                         text=True, check=True, env=env, cwd=HERE)
    return json.loads(out.stdout)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--base", help="directory holding the baseline build's tcplab package")
    p.add_argument("--make-base", nargs=2, metavar=("COMMIT", "DIR"))
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--flows", default="1,10,100,1000,10000")
    p.add_argument("--duration", type=float, default=30.0, help="dumbbell seconds")
    a = p.parse_args()
    if a.make_base:
        make_base(a.make_base[0], Path(a.make_base[1]).resolve())
        return
    if not a.base:
        p.error("--base DIR is required (build it with --make-base COMMIT DIR)")
    cases: list[tuple[str, str, list[str], str]] = []
    for n in a.flows.split(","):
        cases.append((f"dumbbell N={n}", "dumbbell.py",
                      ["--child", n, "--duration", str(a.duration)], "ns/packet"))
    for name, n in [("single", "1"), ("shared", "100"), ("traced", "100")]:
        cases.append((f"tcp {name}", "tcp.py", ["--child", name, n, "60"], "M pkts/s"))
    best: dict[tuple[str, str], float] = {}
    for _ in range(a.repeat):
        for label, script, args, _unit in cases:
            for side, base in (("base", a.base), ("new", None)):
                d = child(base, script, args)
                if script == "dumbbell.py":
                    v = d["core_s"] / d["packets"] * 1e9
                    best[label, side] = min(best.get((label, side), v), v)
                else:
                    v = d["packets"] / d["wall"] / 1e6
                    best[label, side] = max(best.get((label, side), v), v)
    print(f"{'case':<20}{'base':>10}{'new':>10}{'unit':>11}{'new/base cost':>15}")
    for label, _script, _args, unit in cases:
        b, n = best[label, "base"], best[label, "new"]
        cost = n / b if unit == "ns/packet" else b / n
        print(f"{label:<20}{b:>10.2f}{n:>10.2f}{unit:>11}{cost:>14.3f}x")
    print(f"(fastest of {a.repeat} fresh processes per side, interleaved)")


if __name__ == "__main__":
    main()
