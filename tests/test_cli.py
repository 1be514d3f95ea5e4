import json
import subprocess
import sys
from pathlib import Path

import tcplab as tl
from tcplab.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "udp_over_lossy_link.toml"


def test_run_example_prints_table_and_writes_results(tmp_path, capsys):
    assert main(["run", str(EXAMPLE), "--seed", "2", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "udp0" in out and "bottleneck" in out and "goodput Mb/s" in out
    assert (tmp_path / "flows.csv").read_text().startswith("flow,kind,src,dst")
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["scenario"]["seed"] == 2
    # 1.5 Mb/s through PER 0.5%: goodput ~1.49 Mb/s.
    assert 1.47e6 < data["flows"][0]["goodput_bps"] < 1.5e6


def test_run_table_has_every_column_and_the_cli_never_loads_pandas():
    # `tcplab run` stays small: pandas with pyarrow alone is ~90 MB (issue 8's
    # memory target is 100 MB for a 1000-flow run).
    code = (
        "import sys\n"
        "from tcplab.cli import main\n"
        f"main(['run', {str(ROOT / 'examples' / 'westwood_path_newreno.toml')!r}])\n"
        "print('LOADED', [m for m in ('pandas', 'numpy', 'pyarrow') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "LOADED []" in out
    header = next(line for line in out.splitlines() if "goodput Mb/s" in line).split()
    assert header[:3] == ["flow", "kind", "path"] and header[-2:] == ["retx", "timeouts"]
    assert "max queue" in out and "newreno" in out


def test_run_imports_only_what_a_run_needs(tmp_path):
    # Start-up is most of a short run's time (docs/performance.md): `tcplab
    # run` loads neither the builder's classes, the presets, the Python
    # variants' machinery nor the plotting and statistics; a JSON scenario
    # not even the TOML parser; and argparse never loads shutil.
    scenario = tmp_path / "s.json"
    scenario.write_text(tl.Scenario.from_toml(EXAMPLE).to_json())
    heavy = ("tcplab.elements", "tcplab.presets", "tcplab.cc", "tcplab.scenario",
             "tcplab.analysis", "tcplab.plot", "numpy", "pandas", "shutil", "tomllib")
    code = (
        "import sys\n"
        "from tcplab.cli import main\n"
        f"main(['run', {str(scenario)!r}])\n"
        f"print('LOADED', [m for m in {heavy!r} if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "LOADED []" in out
    # The package's names still all resolve, loading their modules on use.
    assert tl.Network and tl.presets.westwood and tl.summarize and tl.Poisson
    assert callable(tl.schema) and sorted(tl.__all__) == sorted(set(tl.__all__))


def test_duration_override(capsys):
    assert main(["run", str(EXAMPLE), "--duration", "2s"]) == 0
    assert "simulated 2.000 s" in capsys.readouterr().out


def test_bad_scenario_exits_2_with_named_field(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.read_text().replace('rate = "2Mbps"', 'rate = "2Mbs"'))
    assert main(["run", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "links[1].rate" in err and "unknown unit 'Mbs'" in err


def test_missing_file_and_bad_toml(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "run", str(tmp_path / "x.toml")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "no such scenario file" in r.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("hosts = [")
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "run", str(bad)],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "not valid TOML" in r.stderr


def test_check_prints_effective_scenario(capsys):
    assert main(["check", str(EXAMPLE)]) == 0
    eff = json.loads(capsys.readouterr().out)
    assert eff["links"][0]["name"] == "a-r"


def test_tcp_example_runs_and_reports_tcp_columns(capsys):
    example = ROOT / "examples" / "westwood_path_newreno.toml"
    assert main(["run", str(example), "--duration", "30s"]) == 0
    out = capsys.readouterr().out
    assert "retx" in out and "timeouts" in out and "newreno" in out and "sack" in out


def test_run_json_prints_the_results_alone_on_stdout(tmp_path, capsys):
    assert main(["run", str(EXAMPLE), "--seed", "2", "--json", "--out", str(tmp_path)]) == 0
    cap = capsys.readouterr()
    data = json.loads(cap.out)  # nothing else on stdout
    saved = json.loads((tmp_path / "results.json").read_text())
    assert data == saved and data["scenario"]["seed"] == 2
    assert "goodput Mb/s" not in cap.out and "wrote" in cap.err


def test_bash_completion_completes_commands_options_values_and_studies(tmp_path, capsys):
    assert main(["completion", "bash"]) == 0
    path = tmp_path / "tcplab.bash"
    path.write_text(capsys.readouterr().out)

    def complete(*words: str) -> list[str]:
        quoted = " ".join(f"'{w}'" for w in words)
        code = (f"source {path}; COMP_WORDS=(tcplab {quoted}); COMP_CWORD={len(words)}; "
                'cd /nonexistent 2>/dev/null; _tcplab; printf "%s\\n" "${COMPREPLY[@]}"')
        out = subprocess.run(["bash", "-c", code], capture_output=True, text=True, check=True)
        return out.stdout.split()

    assert complete("re") == ["reproduce", "results"]
    assert complete("reproduce", "wi") == ["wireless-last-hop"]
    assert complete("run", "x.toml", "--trace-f") == ["--trace-format"]
    assert complete("run", "x.toml", "--trace-format", "") == ["csv", "parquet"]
    assert complete("completion", "") == ["bash", "zsh"]
    assert main(["completion", "zsh"]) == 0
    assert "bashcompinit" in capsys.readouterr().out
