"""The Python package keeps one idea per module: no module over 600 lines.

The Rust side has the same rule (crates/tcplab-core/tests/layers.rs); see
docs/internals.md.
"""

from pathlib import Path

import tcplab

LIMIT = 600


def test_no_python_module_is_over_600_lines() -> None:
    package = Path(tcplab.__file__).parent
    sizes = {p.relative_to(package.parent).as_posix(): len(p.read_text().splitlines())
             for p in package.rglob("*.py")}
    assert len(sizes) > 10, "the package's sources were not found"
    over = {name: n for name, n in sizes.items() if n > LIMIT}
    assert not over, f"over {LIMIT} lines (split by idea, see docs/internals.md): {over}"


def test_the_split_modules_keep_their_old_names() -> None:
    # Sweeps and scenarios were split into several modules; what scripts and
    # pickled work import from tcplab.sweep and tcplab.scenario stays there.
    from tcplab import runner, scenario, scenario_io, sweep, worker

    assert sweep.run_specs is runner.run_specs
    assert sweep.execute is worker.execute
    assert sweep.SweepInterrupted is tcplab.SweepInterrupted  # named so in docs/sweeps.md
    assert sweep.SweepError is tcplab.SweepError
    assert scenario.plain is scenario_io.plain
    assert scenario.Uniform is tcplab.Uniform
