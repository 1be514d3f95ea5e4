"""bench/start_offsets.py: which flows it calls starved, and its ratios (no ns-2 needed)."""

from tcplab.validation.paths import Case, Measure


def run(*flows: float) -> Measure:
    return Measure(goodput=sum(flows), cwnd_mean=10.0, reductions=1.0, retransmitted=0.0,
                   timeouts=0.0, flows=flows)


def test_a_flow_under_a_tenth_of_an_equal_share_is_starved(bench_script) -> None:  # noqa: ANN001
    m = bench_script("start_offsets")
    # TCP-Linux hybla with 4 flows: an equal share is 9.29 / 4 = 2.32 Mb/s.
    assert m.starved(run(3.10, 3.09, 3.06, 0.04)) == [3]
    assert m.starved(run(3.53, 3.26, 0.04, 2.51)) == [2]
    # 0.37 of lp's 4 flows is above a tenth of 8.37 / 4; 0.05 is not.
    assert m.starved(run(0.37, 0.05, 4.03, 3.91)) == [1]
    assert m.starved(run(2.88, 2.63, 1.96, 1.85)) == []
    assert m.starved(Measure(1.0, 1.0, 1.0, 0.0, 0.0)) == []  # a mean: no flows
    assert m.flows(run(3.10, 0.04)) == "3.10, 0.04*"


def test_ratios_of_zero_counts(bench_script) -> None:  # noqa: ANN001
    m = bench_script("start_offsets")
    case = Case("dumbbell", flows=4, duration=120.0, stagger=0.001)

    def measure(reductions: float) -> Measure:
        return Measure(goodput=9.5, cwnd_mean=40.0, reductions=reductions, retransmitted=0.0,
                       timeouts=0.0)

    assert m.ratios(case, measure(481.0), measure(318.0)) == (1.0, 1.0, 481.0 / 318.0)
    # vegas: no reductions on either side
    assert m.ratios(case, measure(0.0), measure(0.0))[2] == 1.0
    assert m.ratios(case, measure(2.0), measure(0.0))[2] == float("inf")


def test_without_ns2_it_says_so_and_exits_2(bench_script, monkeypatch, capsys) -> None:  # noqa: ANN001
    m = bench_script("start_offsets")
    monkeypatch.setattr(m.shutil, "which", lambda _: None)
    assert m.main(["--variant", "hybla"]) == 2
    assert "needs ns-2" in capsys.readouterr().err
