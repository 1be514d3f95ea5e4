"""The Python package keeps one idea per module: no module over 600 lines, no function over
120 lines of code.

The Rust side has the same rule (crates/tcplab-core/tests/layers.rs); see
docs/internals.md.
"""

import ast
from pathlib import Path

import tcplab

LIMIT = 600
#: The most lines of code a function may have: as clippy's `too_many_lines` counts them,
#: its docstring, blank lines and comment lines left out.
FUNCTION_LIMIT = 120


def code_lines(source: str) -> dict[str, int]:
    """Each function's lines of code (qualified by its line), docstring and comments left out."""
    lines = source.splitlines()
    out = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = node.body[0]
        doc = set()
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                and isinstance(first.value.value, str):
            doc = set(range(first.lineno, first.end_lineno + 1))
        start = min([d.lineno for d in node.decorator_list] + [node.lineno])
        out[f"{node.name}:{node.lineno}"] = sum(
            1 for i in range(start, node.end_lineno + 1)
            if i not in doc and lines[i - 1].strip() and not lines[i - 1].strip().startswith("#"))
    return out


def test_no_python_function_is_over_120_lines_of_code() -> None:
    package = Path(tcplab.__file__).parent
    over = {}
    for p in package.rglob("*.py"):
        for name, n in code_lines(p.read_text()).items():
            if n > FUNCTION_LIMIT:
                over[f"{p.relative_to(package.parent).as_posix()}:{name}"] = n
    assert not over, f"over {FUNCTION_LIMIT} lines of code (split by idea): {over}"


def test_the_function_count_leaves_out_docstrings_and_comments() -> None:
    body = "\n".join(["    x = 1"] * 5)
    source = f'def f():\n    """Doc.\n\n    More.\n    """\n    # note\n\n{body}\n'
    assert code_lines(source) == {"f:1": 6}


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
