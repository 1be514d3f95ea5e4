"""ns-2's Vegas retransmission decisions, replayed on packet traces.

tcplab's ns2 profile models when ns-2.35's Agent/TCP/Vegas resends a
segment: on which duplicate ACK, on which new ACK, with which fine-grained
timeout (tcp-vegas.cc `recv`, `vegas_expire`; docs/tcp.md). This script
checks that model against ns-2 itself, without reading ns-2's state: it
replays a packet trace (the data segments the sender sends, the ACKs it
receives, in time order) through a Python transcription of tcp-vegas.cc's
decisions, and compares each resend the transcription predicts with the
resends in the trace.

- On ns-2's own trace, agreement shows that the transcription is ns-2's
  logic (its ring of send counts included: ``--no-ring`` replays without
  it, and the agreement breaks).
- On tcplab's trace of the same scenario, agreement shows that tcplab's
  ns2 Vegas resends where ns-2's code would, given the same packets.

    python bench/ns2_vegas_replay.py            # both ACK policies, PER 0.01 and 0.05
    python bench/ns2_vegas_replay.py --docs     # and the table into docs/validation.md

The scenario is bench/validate_ns2.py's ``ns2`` set (the Westwood path, ns-2
at its own defaults: window_ 20, 360-B segments), one seed of 600 s. A
resend at a timer expiry, and the go-back-N resends on the ACKs after it,
are counted apart: the transcription predicts only resends on ACKs.
"""

from __future__ import annotations

import argparse
import struct
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import tcplab as tl
from doc_tables import write_between  # bench/, beside this file
from tcplab.validation.paths import TCL, westwood_path

DOCS = Path(__file__).resolve().parent.parent / "docs" / "validation.md"
BEGIN = "<!-- ns2_vegas_replay: begin (python bench/ns2_vegas_replay.py --docs) -->"
END = "<!-- ns2_vegas_replay: end -->"

SIZE = 360  # payload bytes (packetSize_ 400 less 40 B of headers)
WINDOW = 20  # window_: the ring of send counts
# tcplab's capture is at the router: a data segment left the source one
# access-link delay and one serialisation (400 B at 10 Mb/s) earlier.
ACCESS_NS = 45_000_000 + 320_000


class VegasModel:
    """tcp-vegas.cc's decisions to resend, from the packets alone."""

    def __init__(self, ring: bool = True) -> None:
        self.ring = ring
        self.sendtime = [-1.0] * WINDOW  # v_sendtime_, times since firstsent_
        self.transmits = [0] * WINDOW  # v_transmits_
        self.last_ack = -1
        self.maxseq = -1
        self.dupacks = 0
        self.worried = 0
        self.first: float | None = None  # firstsent_
        self.sa = self.sd = 0.0
        self.timeout = 1000.0  # v_timeout_
        self.started = False
        self.recover = -1
        self.after_timer = False  # last_cwnd_action_ == CWND_ACTION_TIMEOUT

    def send(self, t: float, seg: int) -> None:
        if self.first is None:
            self.first = t
        i = seg % WINDOW
        self.sendtime[i] = t - self.first
        self.transmits[i] += 1
        self.maxseq = max(self.maxseq, seg)

    def timer(self) -> None:
        """The retransmission timer fired (VegasTcpAgent::timeout)."""
        self.dupacks = 0
        self.recover = self.maxseq
        self.after_timer = True

    def _overdue(self, now: float, seg: int) -> bool:
        return now - self.sendtime[seg % WINDOW] >= self.timeout

    def ack(self, t: float, seqno: int) -> tuple[str, int] | None:
        """An ACK of everything up to segment `seqno`: the resend it makes, if any."""
        now = t - (self.first or 0.0)
        if not self.started:
            self.started = True
            self.sa, self.sd = 8 * now, now
            self.timeout = (self.sa / 4 + self.sd) / 2
        if seqno > self.last_ack:
            old, self.last_ack, self.dupacks = self.last_ack, seqno, 0
            send, count = self.sendtime[seqno % WINDOW], self.transmits[seqno % WINDOW]
            if self.ring:
                k, n = (old + 1) % WINDOW, seqno - old
                while k <= seqno % WINDOW and n > 0:
                    self.sendtime[k], self.transmits[k] = -1.0, 0
                    k, n = (k + 1) % WINDOW, n - 1
            else:
                for s in range(old + 1, seqno + 1):
                    self.sendtime[s % WINDOW], self.transmits[s % WINDOW] = -1.0, 0
            if send != 0 and count == 1 and now - send > 0:
                d = now - send - self.sa / 8
                self.sa += d
                self.sd += abs(d) - self.sd / 4
                self.timeout = (self.sa / 4 + self.sd) / 2
                self.timeout += self.timeout / 16
            if self.worried > 0:
                self.worried -= 1
                if self._overdue(now, seqno + 1):
                    self.dupacks = 3
                    return "new ACK", seqno + 1
                self.worried = 0
            return None
        if seqno != self.last_ack:
            return None
        self.dupacks += 1
        n = self.dupacks
        if not (self._overdue(now, seqno + 1) or n == 3):
            return None
        if self.after_timer and self.last_ack <= self.recover:
            return None  # bugFix_
        self.after_timer = False
        self.recover = self.maxseq
        self.worried = min(2, self.maxseq + 1 - self.last_ack)
        count = self.transmits[(seqno + 1) % WINDOW]
        self.timeout = self.timeout * 2 if count > 1 else self.timeout * 9 / 8
        if count == 1:
            self.dupacks = 3
        return f"duplicate {min(n, 4)}{'+' if n >= 4 else ''}", seqno + 1


def replay(events: list[tuple[float, int, str, int]], ring: bool = True) -> Counter:
    """Runs `events` ((time, order, "ack" or "send", number), sorted) through
    the model; counts the trace's resends by cause and the disagreements."""
    m = VegasModel(ring)
    c: Counter = Counter()
    predicted: dict[tuple[float, int], str] = {}
    last_ack_t = None
    last_send_t = -1.0
    sweep_to = -1  # the go-back-N after a timer resends up to here
    for t, _, kind, n in events:
        if kind == "ack":
            last_ack_t = t
            p = m.ack(t, n)
            if p is not None:
                # (A segment not sent yet goes twice: output() of it, then
                # send_much() from t_seqno_; the second is the resend.)
                cause = p[0] if p[1] <= m.maxseq else f"{p[0]}, a new segment twice"
                predicted[(t, p[1])] = cause
            continue
        # (tcplab's trace shows when a segment starts onto the source's link:
        # a burst leaves 0.32 ms apart, and a send so soon after another
        # belongs to the same ACK.)
        burst = t != last_ack_t and t - last_send_t < 0.001
        at = last_ack_t if burst else t
        for key in [k for k in predicted if k[0] < at]:
            c[f"predicted, not in the trace ({predicted.pop(key)})"] += 1
        if n <= m.maxseq:
            cause = predicted.pop((at, n), None)
            if cause is not None:
                c[f"agreed: {cause}"] += 1
            elif n <= sweep_to and (t == last_ack_t or burst):
                c["go-back-N after the timer"] += 1
            elif t == last_ack_t or burst:
                c["in the trace, not predicted"] += 1
            else:
                m.timer()
                sweep_to = m.maxseq
                c["timer"] += 1
        last_send_t = t
        m.send(t, n)
    return c


def ns2_events(acks: str, per: float, seed: int, duration: float, ns: str) -> list:
    with tempfile.TemporaryDirectory() as d:
        trace = Path(d) / "out.tr"
        args = {"topo": "westwood", "agent": "vegas", "acks": acks, "per": per, "seed": seed,
                "duration": duration, "window": WINDOW, "winit": 2, "minrto": 0.2,
                "tick": 0.01, "singledup": 1, "size": SIZE, "trace": trace}
        subprocess.run([ns, str(TCL)] + [f"{k}={v}" for k, v in args.items()], check=True,
                       capture_output=True, stdin=subprocess.DEVNULL)
        events = []
        for line in trace.open():
            f = line.split()
            ev, t, a, b, kind, seqno = f[0], float(f[1]), f[2], f[3], f[4], int(f[10])
            if ev == "+" and a == "0" and kind == "tcp":
                events.append((t, 1, "send", seqno))
            elif ev == "r" and b == "0" and kind == "ack":
                events.append((t, 0, "ack", seqno))
    return events


def pcap_tcp(path: Path) -> list[tuple[int, int, int, int, int]]:
    """(time in ns, seq, ack, flags, payload length) of each packet of a raw-IP pcap."""
    data = path.read_bytes()
    nano = struct.unpack("<I", data[:4])[0] == 0xA1B23C4D
    out, i = [], 24
    while i < len(data):
        sec, frac, incl, _ = struct.unpack("<IIII", data[i:i + 16])
        p = data[i + 16:i + 16 + incl]
        i += 16 + incl
        ihl = (p[0] & 0x0F) * 4
        total = struct.unpack(">H", p[2:4])[0]
        seq, ack = struct.unpack(">II", p[ihl + 4:ihl + 12])
        thl = (p[ihl + 12] >> 4) * 4
        out.append((sec * 1_000_000_000 + (frac if nano else frac * 1000), seq, ack,
                    p[ihl + 13], total - ihl - thl))
    return out


def tcplab_events(acks: str, per: float, seed: int, duration: float) -> list:
    net = westwood_path(per, cc="vegas", profile="ns2", delayed_ack=1 if acks == "every" else 2,
                        delayed_ack_timeout="200ms")
    with tempfile.TemporaryDirectory() as d:
        net.run(duration=f"{duration}s", seed=seed,
                pcap=tl.Pcap(dir=d, links=["access"], capture="rx"))
        sent = pcap_tcp(Path(d) / "access-0.pcap")
        acked = pcap_tcp(Path(d) / "access-1.pcap")
    syn = 0x02
    events = [((t - ACCESS_NS) / 1e9, 1, "send", (seq - 1) // SIZE)
              for t, seq, _, _, n in sent if n > 0]
    # ns-2 numbers an ACK by the last segment it covers.
    events += [(t / 1e9, 0, "ack", (ack - 1) // SIZE - 1)
               for t, _, ack, flags, n in acked if n == 0 and not flags & syn]
    return sorted(events)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per", type=float, nargs="+", default=[0.01, 0.05])
    ap.add_argument("--acks", nargs="+", default=["delack", "every"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, default=600.0)
    ap.add_argument("--ns", default="ns")
    ap.add_argument("--docs", action="store_true", help="write the table into docs/validation.md")
    a = ap.parse_args()
    rows = []
    for acks in a.acks:
        for per in a.per:
            traces = {"ns-2": ns2_events(acks, per, a.seed, a.duration, a.ns),
                      "tcplab": tcplab_events(acks, per, a.seed, a.duration)}
            for name, events in traces.items():
                rows.append((f"{acks} PER {per}", name, "ring", replay(events)))
            rows.append((f"{acks} PER {per}", "ns-2", "no ring", replay(traces["ns-2"], False)))
    lines = [f"`python bench/ns2_vegas_replay.py` (seed {a.seed}, {a.duration:g} s). Each row: "
             "the trace's resends on ACKs that the transcription of tcp-vegas.cc also makes "
             "(agreed), the resends of the timer and its go-back-N (not predicted), and the "
             "disagreements: resends predicted but not in the trace, and the trace's resends "
             "not predicted.", "",
             "| scenario | trace | model | agreed | timer and go-back-N | disagreements |",
             "|---|---|---|---|---|---|"]
    for scenario, name, model, c in rows:
        agreed = sum(v for k, v in c.items() if k.startswith("agreed"))
        timer = c["timer"] + c["go-back-N after the timer"]
        bad = {k: v for k, v in c.items() if k.startswith(("predicted,", "in the trace"))}
        detail = "; ".join(f"{k} {v}" for k, v in sorted(bad.items())) or "none"
        lines.append(f"| {scenario} | {name} | {model} | {agreed} | {timer} | {detail} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.docs:
        write_between(DOCS, BEGIN, END, text)


if __name__ == "__main__":
    main()
