"""The packetdrill runner: tcplab's own scripts, the corpora of ../shared, and how a
script ends (pass, fail at its first mismatching line, skip with a reason, error)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tcplab as tl
from tcplab.packetdrill.report import run, run_script

ROOT = Path(__file__).resolve().parents[1]
OWN = ROOT / "tests" / "packetdrill"
CORPORA = ROOT.parent / "shared" / "reference" / "packetdrill"
needs_corpora = pytest.mark.skipif(not CORPORA.is_dir(), reason=f"no corpora at {CORPORA}")

#: A passive open under Linux's own defaults (no defaults.sh: tcp_rmem's maximum of 6 MiB
#: makes the window scale 7).
HEAD = """
    0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
   +0 bind(3, ..., ...) = 0
   +0 listen(3, 1) = 0
   +0 < S 0:0(0) win 65535 <mss 1000,sackOK,nop,nop,nop,wscale 7>
   +0 > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 7>
  +.1 < . 1:1(0) ack 1 win 1000
   +0 accept(3, ..., ...) = 4
"""


def script(tmp_path: Path, body: str, name: str = "t.pkt", options: str = "") -> Path:
    p = tmp_path / name
    p.write_text(options + HEAD + body)
    return p


#: The ``tcplab`` command, as its entry point runs it.
CLI = [sys.executable, "-c", "import sys; from tcplab.cli import main; sys.exit(main())"]


def test_own_scripts_all_pass() -> None:
    rep = run(OWN)
    assert len(rep.outcomes) >= 2
    bad = [(o.script, o.line, o.reason) for o in rep.outcomes if o.outcome != "pass"]
    assert not bad
    # Every assertion of the own scripts names fields tcplab keeps.
    assert all(o.asserts_unchecked == 0 for o in rep.outcomes)
    assert sum(o.asserts_checked for o in rep.outcomes) >= 15


def test_a_wrong_expectation_fails_at_its_line(tmp_path: Path) -> None:
    # The first flight is 10 segments (IW10): expecting 5 is wrong at line 11.
    p = script(tmp_path, "   +0 write(4, ..., 20000) = 20000\n"
                         "   +0 > P. 1:5001(5000) ack 1\n"
                         "   +0 > P. 5001:20001(15000) ack 1\n")
    o = run_script(p)
    assert (o.outcome, o.line) == ("fail", 11)
    assert "sequence range 5001:10001, expected 5001:20001" in o.reason
    assert o.expected == "P. 5001:20001(15000) ack 1"
    assert o.actual is not None and o.actual.startswith("0.100000 ")
    # A failure listed in KNOWN or OPEN is reported as such, with the listed reason.
    from tcplab.packetdrill import report

    with pytest.MonkeyPatch.context() as m:
        m.setitem(report.OPEN, "t.pkt", "why not yet")
        o = run_script(p)
        assert (o.outcome, o.line) == ("open", 11) and o.reason.endswith("[open: why not yet]")
        m.setitem(report.KNOWN, "t.pkt", "why it differs")
        assert run_script(p).outcome == "known"


def test_time_is_checked_within_the_tolerance(tmp_path: Path) -> None:
    # One segment in flight: the loss probe's timeout, 2 srtt + 200 ms (Linux
    # tcp_schedule_loss_probe), is later than the RTO, srtt + max(4 rttvar,
    # 200 ms) = 300 ms after the first sample of 100 ms, so the probe goes
    # at the RTO's time: 0.4 s.
    body = ("   +0 write(4, ..., 1000) = 1000\n"
            "   +0 > P. 1:1001(1000) ack 1\n"
            "{t} > P. 1:1001(1000) ack 1\n")
    assert run_script(script(tmp_path, body.format(t="+.3"))).outcome == "pass"
    # packetdrill's tolerance: 4 ms, or 12.5% of the time since the last event.
    late = run_script(script(tmp_path, body.format(t="+.25"), "late.pkt"))
    assert late.outcome == "fail" and "expected at 0.350000 s (+-31250 us)" in late.reason
    loose = script(tmp_path, body.format(t="+.25"), "x.pkt", "--tolerance_usecs=60000")
    assert run_script(loose).outcome == "pass"


def test_tcp_info_assertions_are_checked(tmp_path: Path) -> None:
    ok = script(tmp_path, "   +0 %{ assert tcpi_snd_cwnd == 10 }%\n")
    assert run_script(ok).asserts_checked == 1
    wrong = run_script(script(tmp_path, "   +0 %{ assert tcpi_snd_cwnd == 9 }%\n", "w.pkt"))
    assert wrong.outcome == "fail" and wrong.actual == "tcpi_snd_cwnd = 10"
    # A field tcplab does not keep leaves the assertion unchecked, not failed.
    other = run_script(script(tmp_path, "   +0 %{ assert tcpi_pmtu == 1 }%\n", "o.pkt"))
    assert (other.outcome, other.asserts_unchecked) == ("pass", 1)


def test_tcp_inq_counts_the_fin(tmp_path: Path) -> None:
    # tcp_inq_hint is rcv_nxt - copied_seq, and rcv_nxt counts the FIN: 1000 bytes left
    # read as 1001; all read, 1. The data's ACK covers the FIN at once (more than one
    # segment arrived), in ping-pong mode or not.
    def recv(n: int, inq: int) -> str:
        return (f"   +0 recvmsg(4, {{msg_name(...)=..., msg_iov(1)=[{{..., {n}}}], "
                f"msg_flags=0, msg_control=[{{cmsg_level=SOL_TCP, cmsg_type=TCP_CM_INQ, "
                f"cmsg_data={inq}}}]}}, 0) = {n}\n")
    body = ("   +0 setsockopt(4, SOL_TCP, TCP_INQ, [1], 4) = 0\n"
            "   +0 < F. 1:2001(2000) ack 1 win 1000\n"
            "   +0 > . 1:1(0) ack 2002\n" + recv(1000, 1001) + recv(1000, 1))
    assert run_script(script(tmp_path, body)).outcome == "pass"
    wrong = body.replace("cmsg_data=1001", "cmsg_data=1000")
    o = run_script(script(tmp_path, wrong, "w.pkt"))
    assert (o.outcome, o.reason) == ("fail", "recvmsg: TCP_CM_INQ 1001")


def test_nonblocking_write_returns_short_then_eagain(tmp_path: Path) -> None:
    # The peer's window of 1000 << 7 makes skbs of 64000 (half of it). The first goes
    # at once (10 segments leave, the rest split off and refilled to 64000), then the
    # unsent 64000 bytes are over TCP_NOTSENT_LOWAT: 74000 copied, then EAGAIN, and no
    # POLLOUT until fewer than 2000 bytes are unsent.
    body = ("   +0 setsockopt(4, SOL_TCP, TCP_NOTSENT_LOWAT, [4000], 4) = 0\n"
            "   +0 getsockopt(4, SOL_TCP, TCP_NOTSENT_LOWAT, [4000], [4]) = 0\n"
            "   +0 fcntl(4, F_SETFL, O_RDWR|O_NONBLOCK) = 0\n"
            "   +0 write(4, ..., 100000) = 74000\n"
            "   +0 write(4, ..., 1000) = -1 EAGAIN (Resource temporarily unavailable)\n"
            "   +0 poll([{fd=4, events=POLLOUT, revents=0}], 1, 0) = 0\n"
            "   +0 > P. 1:10001(10000) ack 1\n")
    o = run_script(script(tmp_path, body))
    assert o.outcome == "pass", o
    o = run_script(script(tmp_path, body.replace("= 74000", "= 75000"), "w.pkt"))
    assert (o.outcome, o.reason) == ("fail", "write: 74000 bytes copied")


def test_skips_name_their_reason(tmp_path: Path) -> None:
    p = script(tmp_path, "   +0 setsockopt(4, SOL_TCP, TCP_QUICKACK, [1], 4) = 0\n")
    assert (run_script(p).outcome, run_script(p).reason) == ("skip", "TCP_QUICKACK")
    q = script(tmp_path, "   +0 `sysctl -q net.ipv4.tcp_congestion_control=nosuch`\n",
               "q.pkt")
    o = run_script(q)
    assert o.outcome == "skip" and "congestion control 'nosuch'" in o.reason
    # A second socket while the first is open; once it is closed and gone, a fresh one.
    two = "   +0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 5\n"
    o = run_script(script(tmp_path, two, "two.pkt"))
    assert (o.outcome, o.reason) == ("skip", "more than one socket open at once")
    again = ("   +0 close(4) = 0\n   +0 > F. 1:1(0) ack 1\n   +0 < F. 1:1(0) ack 2 win 1000\n"
             "   +0 > . 2:2(0) ack 2\n   +0 close(3) = 0\n" + HEAD.replace("= 4", "= 6"))
    o = run_script(script(tmp_path, again, "again.pkt"))
    assert o.outcome == "pass", o


def test_a_malformed_script_is_an_error_naming_file_line_column(tmp_path: Path) -> None:
    p = tmp_path / "bad.pkt"
    p.write_text("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 > S. 0:0(0) ack\n")
    o = run_script(p)
    assert o.reason == f"{p}:3:1: expected a number after 'ack', found end of file"
    assert o.outcome == "error"
    # The runner goes on with the next script.
    rep = run([p, OWN / "client-rto.pkt"])
    assert [x.outcome for x in rep.outcomes] == ["error", "pass"]


def test_cli_json_and_exit_codes(tmp_path: Path) -> None:
    cmd = [*CLI, "packetdrill", str(OWN), "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["summary"]["passed"] == len(doc["scripts"]) >= 2
    assert {"passed", "failed", "skipped"} <= doc["summary"].keys()
    bad = script(tmp_path, "   +0 write(4, ..., 1000) = 1000\n   +0 > P. 1:999(998) ack 1\n")
    r = subprocess.run([*CLI, "packetdrill", str(bad)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 1 and "FAIL t.pkt:10: sequence range 1:1001" in r.stdout
    r = subprocess.run([*CLI, "packetdrill", str(OWN), "--markdown"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "| **total** | **" in r.stdout
    assert r.stdout.splitlines()[0] == "| topic | pass | fail | known | open | kernel | skip |"
    r = subprocess.run([*CLI, "packetdrill", "/no/such"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 2 and "no such script" in r.stderr and "Traceback" not in r.stderr


def test_validate_has_a_packetdrill_section() -> None:
    import tcplab.validation as tv

    rep = tv.run(only="packetdrill", packetdrill_dir=OWN)
    rows = [r for s in rep.sections if s.kind == "packetdrill" for r in s.rows]
    assert len(rows) >= 2 and all(r.verdict == "pass" for r in rows)


def test_python_api() -> None:
    rep = tl.packetdrill.run(OWN / "server-iw10-slow-start.pkt")
    assert rep.summary()["passed"] == 1


#: Corpus scripts that pass through one mechanism each: switching it off fails them.
MUST_PASS = {
    # A RST answers a segment for a socket that is gone (RFC 793 3.4).
    "close/close-on-syn-sent.pkt": "no RST at close in SYN_SENT; the SYN-ACK then gets one",
    "close/close-remote-fin-then-close.pkt": "LAST_ACK ends at the ACK of the FIN",
    # close() with data unread sends a RST carrying timestamps (tcp_send_active_reset).
    "ts_recent/reset_tsval.pkt": "RST|ACK on close with data unread",
    # Writes after SHUT_WR fail with EPIPE; the FIN is the loss probe's tail.
    "shutdown/shutdown-wr-close.pkt": "EPIPE after SHUT_WR",
    "shutdown/shutdown-rdwr-write-queue-close.pkt": "the probe resends the lone FIN",
    # Data after close() in FIN_WAIT1 gets a RST; the FIN gets a loss probe.
    "user_timeout/user_timeout.pkt": "TLP of the FIN, RST on data after close",
    # TCP_INQ's control message: bytes left, 1 once the FIN arrived and all is read.
    "inq/server.pkt": "TCP_CM_INQ", "inq/client.pkt": "TCP_CM_INQ",
    # MSG_EOR: no segment, new or retransmitted, crosses a record's end.
    "eor/no-coalesce-subsequent.pkt": "records of 400 bytes sent apart",
    "eor/no-coalesce-retrans.pkt": "retransmissions split at record ends",
    "eor/no-coalesce-large.pkt": "a record longer than a segment",
    # TCP_CORK and MSG_MORE hold a partial last segment; TCP_NODELAY pushes it; the
    # probe timer sends it after an RTO with nothing in flight.
    "nagle/sockopt_cork_nodelay.pkt": "TCP_CORK, pushed by uncorking and TCP_NODELAY",
    "nagle/sendmsg_msg_more.pkt": "MSG_MORE, the probe timer, ACKs pushing",
    # The fq qdisc: Linux's pacing rate, departure times and TSO-sized bursts.
    "slow_start/slow-start-fq-ack-per-2pkt.pkt": "paced 2-segment skbs in slow start",
    # A FIN in ESTABLISHED enters ping-pong mode: its ACK waits 40 ms for close's FIN.
    "tcp_basic_server.pkt": "the FIN's delayed ACK",
    # A local qdisc dropping everything: unsent data probed every 500 ms, 6 probes,
    # then TCP_USER_TIMEOUT's end 3 s after the first.
    "user_timeout/user-timeout-probe.pkt": "probes of unsent data, then ETIMEDOUT",
    # IP_TOS and IP_MTU_DISCOVER change nothing TCP does.
    "sack/sack-route-refresh-ip-tos.pkt": "SACKed data is not resent",
    # The send buffer: SO_SNDBUF read back, a blocking write woken by the ACK that
    # frees enough (truesize accounting), TCP_NOTSENT_LOWAT's short write and POLLOUT.
    "blocking/blocking-write.pkt": "the write wakes at the ACK of 36001",
    "notsent_lowat/notsent-lowat-setsockopt.pkt": "26000 of 59000 copied; POLLOUT",
    "notsent_lowat/notsent-lowat-sysctl.pkt": "the sysctl's low-water mark",
    # RACK.rtt from the last segment Linux's tcp_rack_advance is given: the last one
    # in flight is not lost yet, and PRR sends 3 (both copies).
    "fast_recovery/prr-ss-ack-below-snd_una-cubic.pkt": "PRR's 3 after an ACK below a SACK",
    "tcp_fast_recovery_prr-ss-ack-below-snd_una-cubic.pkt": "the selftests' copy",
    # The linux profile's CUBIC is Linux's module: its whole-segment step lands on
    # the kernel's ACK in congestion avoidance after an RTO.
    "cubic/cubic-rto-ss-ca-cwnd-bump.pkt": "CUBIC's cnt and tcp_cong_avoid_ai",
    # A second socket once the first is closed and gone: a fresh connection.
    "tcp_ooo-before-and-after-accept.pkt": "SACKs of out-of-order data, twice",
}


@needs_corpora
def test_corpora_have_no_unexplained_failure() -> None:
    rep = run(CORPORA)
    s = rep.summary()
    assert s["scripts"] == 314 and s["errors"] == 0
    # 2026-11-29: 107 pass, 5 known, none open, 10 the kernel's own failures.
    assert s["passed"] >= 107 and s["open"] == 0, s
    by_name = {o.script: o for o in rep.outcomes}
    bad = {k: (by_name[k].outcome, by_name[k].reason) for k in MUST_PASS
           if by_name[k].outcome != "pass"}
    assert not bad, bad
    unexplained = [(o.script, o.line, o.reason) for o in rep.outcomes if o.outcome == "fail"]
    assert not unexplained, f"{len(unexplained)} failures: {unexplained[:5]}"
    # Every feature skip names its reason; AccECN waits for the L4S issue.
    assert all(o.reason for o in rep.outcomes if o.outcome == "skip")
    # The two accecn scripts that use plain RFC 3168 ECN run and pass.
    plain = {"tcp_accecn_acc_ecn_disabled.pkt", "tcp_accecn_rfc3168_to_rfc3168.pkt"}
    accecn = [o for o in rep.outcomes if o.topic == "accecn"]
    assert len(accecn) == 58
    assert all((o.outcome == "pass") if o.script in plain
               else (o.outcome, o.reason) == ("skip", "AccECN: the L4S issue") for o in accecn)
