"""The packetdrill script parser (issue 54): the two reference corpora parse, hand-written
snippets give exact trees, malformed scripts give exact ``file:line:column`` messages.

The corpora are GPL test data read at test time from ../shared/reference/packetdrill; no
script or fragment of one is copied here (every snippet below is written for this test).
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from tcplab.packetdrill import (
    AddrOf,
    Array,
    Assertion,
    BitOr,
    Command,
    Elided,
    IcmpPacket,
    Int,
    Name,
    ParseError,
    Script,
    ScriptOption,
    Str,
    Struct,
    Syscall,
    TcpOption,
    TcpPacket,
    Time,
    UdpPacket,
    feature_skip_reason,
    parse,
    topic,
)
from tcplab.packetdrill.classify import feature_reasons

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "packetdrill"
GOOGLE = "google/gtests/net/tcp/**/*.pkt"
LINUX = "linux/*.pkt"
needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"packetdrill corpora not found at {CORPUS} (../shared)")


def corpus(glob: str) -> list[Path]:
    return sorted(CORPUS.glob(glob))


@needs_corpus
@pytest.mark.parametrize(("glob", "count"), [(GOOGLE, 162), (LINUX, 152)])
def test_every_corpus_script_parses(glob: str, count: int) -> None:
    files = corpus(glob)
    assert len(files) == count  # the README's counts
    failures = []
    for f in files:
        try:
            script = parse(f)
        except ParseError as e:
            failures.append(str(e))
            continue
        assert script.events, f
    assert not failures, "\n".join(failures)


@needs_corpus
def test_topics_match_the_readme_table() -> None:
    google = Counter(topic(f) for f in corpus(GOOGLE))
    linux = Counter(topic(f) for f in corpus(LINUX))
    assert google["fastopen"] == 64 and google["slow_start"] == 10 and google["sack"] == 4
    assert google["shutdown"] == 6 and google["zerocopy"] == 11 and len(google) == 31
    assert linux["accecn"] == 58 and linux["fastopen"] == 19 and linux["rcv"] == 6
    assert linux["ooo"] == 2 and linux["tcp_info"] == 3 and linux["ts_recent"] == 3
    assert sum(google.values()) == 162 and sum(linux.values()) == 152


@needs_corpus
def test_skip_reasons_over_the_corpus() -> None:
    reasons = Counter(feature_skip_reason(parse(f)) for f in corpus(GOOGLE) + corpus(LINUX))
    assert dict(reasons) == {
        "AccECN: the L4S issue": 56, "fastopen": 84, "zerocopy": 22, "syscall_bad_arg": 6,
        "timestamping (SO_TIMESTAMPING)": 5, "epoll": 4, "splice": 2, "sendfile": 2,
        "md5": 2, "gro": 2, "ioctl": 3, "syncookies": 1, None: 125}


def test_topic_from_either_layout() -> None:
    assert topic("x/gtests/net/tcp/fastopen/server/opt34/simple1.pkt") == "fastopen"
    assert topic("google/gtests/net/tcp/slow_start/a.pkt") == "slow_start"
    assert topic("linux/tcp_slow_start_slow-start-x.pkt") == "slow_start"
    assert topic("linux/tcp_ooo-before-and-after-accept.pkt") == "ooo"
    assert topic("linux/tcp_tcp_info_tcp-info-x.pkt") == "tcp_info"
    assert topic("mine/dsack/undo.pkt") == "dsack"


TIMES = """\
--tolerance_usecs=10000
--ip_version=ipv4
--send_omit_free
`echo setup`
0 close(3) = 0
1.5 close(3) = 0
+0.1 close(3) = 0
+.3 close(3) = 0
+.3~+.310 close(3) = 0
+0...0.200 close(3) = 0
* close(3) = 0
"""


def test_times_of_every_form() -> None:
    script = parse(TIMES, name="times.pkt")
    assert script.options == (ScriptOption("tolerance_usecs", "10000", 1),
                              ScriptOption("ip_version", "ipv4", 2),
                              ScriptOption("send_omit_free", None, 3))
    assert script.option("tolerance_usecs") == "10000"
    assert script.init_command == Command("echo setup")
    assert [e.time for e in script.events] == [
        Time("absolute", 0), Time("absolute", 1_500_000), Time("relative", 100_000),
        Time("relative", 300_000), Time("relative", 300_000, 310_000, "range", True),
        Time("relative", 0, 200_000, "blocking", False), Time("any", None)]
    assert [e.line for e in script.events] == list(range(5, 12))


def test_a_syn_with_options() -> None:
    script = parse("+0 < S 0:0(0) win 65535 <mss 1460,sackOK,TS val 7 ecr 0,nop,"
                   "wscale 9,FO 0a1b,FOEXP,eol>\n")
    assert script.events[0].action == TcpPacket(
        "<", "S", 0, 0, 0, win=65535, options=(
            TcpOption("mss", 1460), TcpOption("sackOK"), TcpOption("TS", 7, 0),
            TcpOption("nop"), TcpOption("wscale", 9), TcpOption("FO", cookie="0a1b"),
            TcpOption("FOEXP"), TcpOption("eol")))


def test_a_sack_ack_and_an_ecn_packet() -> None:
    script = parse("+.02 < . 1:1(0) ack 2001 win 300 <sack 3001:4001 5001:7001,nop,nop>\n"
                   "+0 > [ect0] EAP.5 2001:3001(1000) ack 1 <ECN e1b 9 ceb 0 e0b 1,nop>\n"
                   "+0 < [ce] W. 1:1(0) ack 1 win 9 urg 0\n")
    sack, ecn, ce = (e.action for e in script.events)
    assert sack == TcpPacket("<", ".", 1, 1, 0, ack=2001, win=300, options=(
        TcpOption("sack", blocks=((3001, 4001), (5001, 7001))), TcpOption("nop"),
        TcpOption("nop")))
    assert ecn == TcpPacket(">", "EAP.5", 2001, 3001, 1000, ack=1, ecn="ect0", options=(
        TcpOption("ECN", counters=(("e1b", 9), ("ceb", 0), ("e0b", 1))), TcpOption("nop")))
    assert ce == TcpPacket("<", "W.", 1, 1, 0, ack=1, win=9, urg=0, ecn="ce")


def test_syscalls_with_errno_and_structured_arguments() -> None:
    script = parse(
        "0 connect(3, ..., ...) = -1 EINPROGRESS (Operation now in progress)\n"
        "+0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0x0 (flags O_RDWR)\n"
        "+0 setsockopt(3, SOL_SOCKET, SO_LINGER, {onoff=1, linger=0}, 8) = 0\n"
        "+0 poll([{fd=3, events=POLLIN}], 1, &{tv_sec=1}) = 1\n")
    assert [e.action for e in script.events] == [
        Syscall("connect", (Int(3, "3"), Elided(), Elided()), Int(-1, "-1"), "EINPROGRESS",
                "Operation now in progress"),
        Syscall("fcntl", (Int(3, "3"), Name("F_SETFL"),
                          BitOr((Name("O_RDWR"), Name("O_NONBLOCK")))),
                Int(0, "0x0"), None, "flags O_RDWR"),
        Syscall("setsockopt", (Int(3, "3"), Name("SOL_SOCKET"), Name("SO_LINGER"),
                               Struct((("onoff", Int(1, "1")), ("linger", Int(0, "0")))),
                               Int(8, "8")), Int(0, "0")),
        Syscall("poll", (Array((Struct((("fd", Int(3, "3")), ("events", Name("POLLIN")))),)),
                         Int(1, "1"), AddrOf(Struct((("tv_sec", Int(1, "1")),)))), Int(1, "1")),
    ]


def test_assertion_blocks_commands_and_comments() -> None:
    text = ("/* a header\n   over two lines */\n"
            "0 close(3) = 0 // trailing\n"
            "+0 %{\nassert tcpi_ca_state == 0   # Open\nassert tcpi_snd_cwnd == 10\n}%\n"
            "+0 `sysctl -q net.ipv4.tcp_ecn=1`\n"
            "`echo done`\n")
    script = parse(text, name="t.pkt")
    assert script == Script("t.pkt", events=(
        script.events[0],
        script.events[1].__class__(Time("relative", 0), Assertion(
            "\nassert tcpi_ca_state == 0   # Open\nassert tcpi_snd_cwnd == 10\n"), 4),
        script.events[2].__class__(Time("relative", 0),
                                   Command("sysctl -q net.ipv4.tcp_ecn=1"), 8)),
        cleanup_command=Command("echo done"))
    assert script.events[0].line == 3


def test_ip_fields_ports_udp_icmp_and_string_prefixes() -> None:
    script = parse('--define="a b"\n--remote_ip=192.0.2.9\n'
                   "0 < (tos 0x2, flowlabel 0x11) 80>8080 S. 0:0(0) ack 1\n"
                   "+0 < [ce] udp 5>6 (20)\n"
                   "+0 < icmp unreachable frag_needed mtu 1200 [1:1001(1000)]\n"
                   "+0 < icmp unreachable port_unreachable id 3 [udp (8)]\n"
                   '+0...0.5 write(3, "ab"..., 2) = 2\n')
    assert script.option("define") == "a b" and script.option("remote_ip") == "192.0.2.9"
    tcp, udp, icmp, icmp_udp, write = (e.action for e in script.events)
    assert tcp == TcpPacket("<", "S.", 0, 0, 0, ack=1, ip=(("tos", 2), ("flowlabel", 17)),
                            ports=(80, 8080))
    assert udp == UdpPacket("<", 20, "ce", ports=(5, 6))
    assert icmp == IcmpPacket("<", "unreachable", "frag_needed", 1200, (1, 1001, 1000),
                              echoed="tcp")
    assert icmp_udp == IcmpPacket("<", "unreachable", "port_unreachable", echo_id=3,
                                  echoed="udp", echoed_length=8)
    assert write == Syscall("write", (Int(3, "3"), Str("ab", prefix=True), Int(2, "2")),
                            Int(2, "2"))
    assert script.events[4].time == Time("relative", 0, 500_000, "blocking")


def test_parse_reads_a_path(tmp_path: Path) -> None:
    f = tmp_path / "one.pkt"
    f.write_text("0 close(3) = 0\n")
    assert parse(f).name == str(f) and parse(str(f)).events == parse(f).events


MALFORMED = [
    ("0 < Q 0:0(0) win 100\n",
     "x.pkt:1:5: expected a TCP flag (S, F, P, R, U, ., E, W, A, an ACE digit 0-7, or -), "
     "found 'Q'"),
    ("0 close(3) = 0\n+.1 > S.Q 0:0(0) ack 1\n",
     "x.pkt:2:9: expected a TCP flag (S, F, P, R, U, ., E, W, A, an ACE digit 0-7, or -), "
     "found 'Q'"),
    ("+0 < . 1-1001 ack 1 win 100\n",
     "x.pkt:1:9: expected a sequence range 'start:end(length)', found '-1001'"),
    ("socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n",
     "x.pkt:1:1: expected a time (0, 1.5, +0.1, +.3~+.310, +0...0.2 or *), found 'socket'"),
    ("+0 frobnicate\n", "x.pkt:1:4: expected a system call, a packet ('<' or '>'), "
     "a %{ }% block or a `command`, found 'frobnicate'"),
    ("0 socket(..., SOCK_STREAM, IPPROTO_TCP) 3\n",
     "x.pkt:1:41: expected '=' and the expected result after socket(...), found '3'"),
    ("+0 > S 0:0(0) <mss 1460,bogus 3>\n",
     "x.pkt:1:25: expected a TCP option (mss, sackOK, sack, TS, wscale, nop, eol, FO, FOEXP, "
     "md5, ECN), found 'bogus'"),
    ("+0 > . 1:1(0) ack 1 <nop,nop,TS val 10>\n",
     "x.pkt:1:39: expected 'ecr' after the TS value, found '>'"),
    ("+0 > [ect2] . 1:1(0) ack 1\n",
     "x.pkt:1:7: expected an IP field (noecn, ect0, ect1, ect01, ce, tos 0x.., flowlabel 0x.. "
     "or ttl N), found 'ect2'"),
    ("+0 > [ect0 . 1:1(0) ack 1\n", "x.pkt:1:12: expected ',' or ']' in the IP fields, found '.'"),
    ("+.3~.4 close(3) = 0\n",
     "x.pkt:1:5: expected '+' before the range's end, as before its start, found '.4'"),
    ("+.3~+.2 close(3) = 0\n", "x.pkt:1:5: a time range that ends before it starts"),
    ("+0...1 > . 1:1(0) ack 1\n",
     "x.pkt:1:8: expected a system call after a blocking time 'start...end', found '>'"),
    ("0 close(3) = -1 EBADF\n+0 close(4) = 0\n",
     "x.pkt:2:1: expected a note in parentheses after the errno EBADF, e.g. (Operation now in "
     "progress), found '+'"),
    ("0 > . 1:1(0) ack 1 <md5,nop>\n",
     "x.pkt:1:24: expected an MD5 digest (hex) after 'md5', found ','"),
    ("+0 %{ assert tcpi_snd_cwnd == 10\n",
     "x.pkt:1:4: unterminated %{ }% block: expected '}%' before the end of file"),
    ("0 close(3) = 0 /* never closed\n",
     "x.pkt:1:16: unterminated comment: expected '*/' before the end of file"),
    ("0 close(3) = 0\n--mss=1000\n",
     "x.pkt:2:1: option '--mss=1000' after the first event: options must come before every "
     "event"),
    ("0 close(3) = -1 EBADF (Bad file\n",
     "x.pkt:2:1: expected ')' to close the note opened at 1:23, found end of file"),
    ("+-1 close(3) = 0\n", "x.pkt:1:2: expected a time that is not negative, found '-1'"),
    ("+0 > S 0:0(0) <mss 1460\n+0 close(3) = 0\n",
     "x.pkt:2:1: expected ',' or '>' in the TCP options, found '+'"),
    ("+0 < . 1:1(0) ack 1 ack 2\n",
     "x.pkt:1:21: 'ack' given twice or out of order (packetdrill's order is ack, win, urg)"),
    ("+0 < . 1:1001(100) ack 1 win 100\n",
     "x.pkt:1:8: the sequence range 1:1001(100) spans 1000 bytes, not 100"),
    ("+0 < . 1:1(0) ack 1 win 70000\n",
     "x.pkt:1:25: expected a number after 'win' (0 to 65535), found '70000'"),
    ("+0 > S 0:0(0) <mss 1460,wscale 300>\n",
     "x.pkt:1:32: expected a number after 'wscale' (0 to 255), found '300'"),
    ("0 f(" + "[" * 100 + ") = 0\n",
     "x.pkt:1:69: expected a value nested at most 64 deep, found '['"),
    ("+0 < . 1:1(0) win 10 ack 1\n",
     "x.pkt:1:22: 'ack' given twice or out of order (packetdrill's order is ack, win, urg)"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED)
def test_malformed_scripts_give_exact_messages(text: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse(text, name="x.pkt")
    assert str(info.value) == message
    assert info.value.__cause__ is None and info.value.__context__ is None


ROBUST = """\
--tolerance_usecs=7000
`echo start`
0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0 setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0
+0 sendmsg(3, {msg_name(...)=..., msg_iov(1)=[{..., 10}], msg_flags=0}, 0) = 10
+.1 < [ect0] S 0:0(0) win 100 <mss 1000,sackOK,TS val 1 ecr 0,nop,wscale 7>
+0 > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 8>
+.2~+.3 < . 1:1(0) ack 1 win 257 <sack 5:9,nop,nop>
+0...0.1 read(3, ..., 10) = -1 EAGAIN (Resource temporarily unavailable)
* %{ assert tcpi_snd_cwnd == 10 }%
/* done */ `echo end`
"""


def test_every_damaged_script_parses_or_gives_a_parse_error() -> None:
    """Every truncation of a script, and every one-character change from a small set, either
    parses or raises ParseError: never another exception from inside the parser."""
    assert len(parse(ROBUST).events) == 8
    damaged = [ROBUST[:i] for i in range(len(ROBUST))]
    for i in range(0, len(ROBUST), 3):
        for char in "<>[](){}.,:~+*-=|&%`\"/ Q9":
            damaged.append(ROBUST[:i] + char + ROBUST[i + 1:])
    for text in damaged:
        try:
            parse(text, name="d.pkt")
        except ParseError as e:
            assert str(e).startswith("d.pkt:")


def test_feature_skip_reasons_from_what_a_script_uses() -> None:
    def reason(text: str, name: str = "mine.pkt") -> str | None:
        return feature_skip_reason(parse(text, name=name))

    assert reason("0 close(3) = 0\n") is None
    assert reason("0 sendto(3, ..., 100, MSG_FASTOPEN, ..., ...) = 100\n") == "fastopen"
    assert reason("0 epoll_create(1) = 5\n") == "epoll"
    assert reason("0 write(4, NULL, 10) = -1 EFAULT (Bad address)\n") == "syscall_bad_arg"
    assert reason("+0 > . 1:1(0) ack 1 <md5 0011,nop,nop>\n") == "md5"
    assert reason("+0 < [ect0] .5 1:1(0) ack 1 win 9\n") == "AccECN: the L4S issue"
    both = "0 send(4, ..., 10, MSG_ZEROCOPY) = 10\n+0 > S 0:10(10) <FO 01>\n"
    assert feature_reasons(parse(both)) == ["fastopen", "zerocopy"]
    assert reason(both) == "fastopen"
    assert reason(both, name="x/tcp/zerocopy/a.pkt") == "zerocopy"  # its own topic wins


def test_the_subpackage_is_not_imported_by_import_tcplab() -> None:
    code = "import sys, tcplab; print('tcplab.packetdrill' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
