"""The Linux settings a packetdrill script runs under, and the tcplab flow they make.

A script's environment is Linux's defaults, then its ``defaults.sh`` (found from the
script's init command, as packetdrill runs it), then the script's own ``sysctl`` lines and
socket options. :class:`Env` keeps the settings that decide TCP's behaviour, and
:meth:`Env.flow` turns them into a tcplab tcp flow under the linux profile. A setting that
changes behaviour tcplab does not model makes the script skip with that reason
(:attr:`Env.unmodelled`); one that changes nothing a simulator sees (fastopen keys,
metrics caches, SYN cookies) is read and ignored.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

#: Linux's congestion-control modules and the tcplab variant that models each.
CC_NAMES = {
    "reno": "reno", "cubic": "cubic", "bbr": "bbr", "dctcp": "dctcp", "vegas": "vegas",
    "westwood": "westwoodplus", "cdg": "cdg", "htcp": "htcp", "highspeed": "highspeed",
    "bic": "bic",
    "scalable": "scalable", "veno": "veno", "hybla": "hybla", "illinois": "illinois",
    "yeah": "yeah", "lp": "lp", "nv": "nv",
}

#: Sysctls read and ignored: they change nothing a simulated connection sees.
IGNORED = {
    "tcp_syn_retries", "tcp_synack_retries", "tcp_fack", "tcp_tso_win_divisor",
    "tcp_fastopen",
    "tcp_fastopen_key", "tcp_syncookies", "tcp_ecn_option", "tcp_ecn_option_beacon",
    "tcp_no_metrics_save", "tcp_moderate_rcvbuf",
    "tcp_autocorking", "tcp_tso_rtt_log", "tcp_min_rtt_wlen", "tcp_thin_linear_timeouts",
    "tcp_retries1", "tcp_retries2", "tcp_orphan_retries", "tcp_fin_timeout",
    "tcp_limit_output_bytes", "tcp_adv_win_scale", "tcp_workaround_signed_windows",
    "tcp_max_reordering", "tcp_frto", "tcp_dsack", "tcp_ecn_fallback", "tcp_mtu_probing",
    "tcp_base_mss", "tcp_probe_threshold", "tcp_probe_interval", "tcp_mtu_probe_floor",
    "tcp_shrink_window", "tcp_backlog_ack_defer", "tcp_comp_sack_nr",
    "tcp_comp_sack_delay_ns", "tcp_comp_sack_slack_ns", "tcp_rto_min_us", "tcp_rto_max_ms",
    "tcp_invalid_ratelimit", "tcp_challenge_ack_limit", "tcp_rfc1337", "tcp_abort_on_overflow",
    "tcp_tw_reuse", "tcp_plb_enabled", "tcp_rmem_max", "tcp_window_scaling_max",
}


@dataclass
class Env:
    """The settings of one script's run, as Linux would see them."""

    cc: str = "cubic"
    sack: bool = True
    dsack: bool = True
    timestamps: bool = True
    window_scaling: bool = True
    #: net.ipv4.tcp_ecn: 0 off, 1 ask and accept, 2 accept only.
    ecn: int = 2
    reordering: int = 3
    #: net.ipv4.tcp_recovery bit 0: RACK loss detection.
    rack: bool = True
    #: net.ipv4.tcp_early_retrans 3 or 4: the tail loss probe.
    tlp: bool = True
    frto: int = 2
    slow_start_after_idle: bool = True
    rmem: tuple[int, int, int] = (4096, 131072, 6291456)
    rmem_max: int = 212992
    #: net.ipv4.tcp_wmem, net.core.wmem_max (SO_SNDBUF's ceiling) and
    #: net.ipv4.tcp_notsent_lowat: the send buffer (:mod:`.sndbuf`).
    wmem: tuple[int, int, int] = (4096, 16384, 4194304)
    wmem_max: int = 212992
    notsent_lowat: int = 0xFFFF_FFFF
    #: The fq qdisc on the tun device: Linux paces every connection (docs/packetdrill.md),
    #: with net.ipv4.tcp_pacing_ss_ratio and _ca_ratio (percent) and tcp_min_tso_segs.
    fq: bool = False
    pacing_ss_ratio: int = 200
    pacing_ca_ratio: int = 120
    min_tso_segs: int = 2
    #: A local qdisc drops every packet (``tc ... pfifo limit 0``).
    local_drop: bool = False
    #: Socket options: TCP_MAXSEG, SO_RCVBUF.
    maxseg: int | None = None
    rcvbuf: int | None = None
    #: Why the script cannot run here: a setting tcplab does not model.
    unmodelled: list[str] = field(default_factory=list)
    #: Settings read and ignored, for the report.
    ignored: list[str] = field(default_factory=list)

    # ---------------------------------------------------------------- sysctls

    def sysctl(self, name: str, value: str) -> None:
        """Applies ``net.ipv4.<name> = value`` (or a ``net.core`` one)."""
        key = name.replace("/", ".").rsplit(".", 1)[-1]
        v = value.strip().strip('"').strip("'")
        nums = [int(x, 0) for x in v.split()] if re.fullmatch(r"[\s0-9xa-fA-F]+", v) else []
        one = nums[0] if len(nums) == 1 else None
        if key == "tcp_congestion_control":
            if v not in CC_NAMES:
                self.unmodelled.append(f"congestion control '{v}' (no tcplab variant)")
            self.cc = CC_NAMES.get(v, v)
        elif key in ("tcp_sack", "tcp_timestamps", "tcp_window_scaling") and one is not None:
            attr = {"tcp_sack": "sack", "tcp_timestamps": "timestamps",
                    "tcp_window_scaling": "window_scaling"}[key]
            if key == "tcp_timestamps" and one not in (0, 1):
                self.unmodelled.append(f"tcp_timestamps={one} (microsecond timestamps)")
            setattr(self, attr, bool(one))
        elif key == "tcp_ecn" and one is not None:
            if one > 2:
                self.unmodelled.append(f"tcp_ecn={one} (AccECN: the L4S issue)")
            self.ecn = one
        elif key == "tcp_reordering" and one is not None:
            self.reordering = one
        elif key == "tcp_recovery" and one is not None:
            self.rack = bool(one & 1)
            if one & ~1:
                self.unmodelled.append(f"tcp_recovery={one} (RACK's no-static-reordering bit)")
        elif key == "tcp_early_retrans" and one is not None:
            self.tlp = one in (3, 4)
        elif key == "tcp_slow_start_after_idle" and one is not None:
            self.slow_start_after_idle = bool(one)
        elif key == "tcp_rmem" and len(nums) == 3:
            self.rmem = (nums[0], nums[1], nums[2])
        elif key == "rmem_max" and one is not None:
            self.rmem_max = one
        elif key == "tcp_wmem" and len(nums) == 3:
            self.wmem = (nums[0], nums[1], nums[2])
        elif key == "wmem_max" and one is not None:
            self.wmem_max = one
        elif key == "tcp_notsent_lowat" and one is not None:
            self.notsent_lowat = one
        elif key == "tcp_frto" and one is not None:
            self.frto = one
        elif key == "tcp_dsack" and one is not None:
            self.dsack = bool(one)
        elif key in ("tcp_pacing_ss_ratio", "tcp_pacing_ca_ratio") and one is not None:
            if not 0 <= one <= 1000:
                self.unmodelled.append(f"{key}={one} (Linux allows 0 to 1000)")
            setattr(self, key.removeprefix("tcp_"), one)
        elif key == "tcp_min_tso_segs" and one is not None:
            self.min_tso_segs = max(1, one)
        elif key in IGNORED:
            self.ignored.append(key)
        else:
            self.unmodelled.append(f"sysctl {key}")

    def command(self, text: str, folder: Path | None) -> None:
        """Applies a shell command of the script (or of its init command)."""
        text = re.sub(r"\$\(\(([0-9+*/() -]+)\)\)", lambda m: str(_arith(m.group(1))), text)
        text = text.replace("\\\n", " ")  # a line continued
        for line in re.split(r"[\n;]|&&", text):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                words = shlex.split(line)
            except ValueError:
                words = line.split()
            self._command_words(words, folder)

    def _command_words(self, words: list[str], folder: Path | None) -> None:
        head = words[0]
        if head.endswith("defaults.sh"):
            if folder is not None and (folder / head).is_file():
                self.command((folder / head).read_text(), folder)
            return
        if head == "sysctl":
            for w in words[1:]:
                if "=" in w and not w.startswith("-"):
                    name, _, value = w.partition("=")
                    self.sysctl(name, value)
            return
        if head.endswith("set_sysctls.py"):
            for w in words[1:]:
                if "=" in w:
                    name, _, value = w.partition("=")
                    self.sysctl(name.replace("/", ".").rsplit("ipv4.", 1)[-1], value)
            return
        if head == "tc":
            text = " ".join(words)
            if re.search(r"\bqdisc (replace|add) dev \S+ root fq$", text):
                # fq paces each flow at its sk_pacing_rate, and TCP, seeing
                # it, stamps departure times on its skbs (SK_PACING_FQ).
                self.fq = True
            elif re.search(r"\b(fq|fq_codel|netem)\b", text):
                self.unmodelled.append(f"qdisc on the tun device ({text})")
            elif re.search(r"\blimit 0\b", text):
                # Every packet is dropped before it leaves (the runner models
                # Linux's probing of unsent data under local congestion).
                self.local_drop = True
            return
        if head in ("ip", "nstat", "echo", "cat", "grep", "true", "sleep", "ss", "printf",
                    "test", "[", "exit"):
            if head == "ip" and "route" in words and any(
                    w in words for w in ("initcwnd", "initrwnd", "rto_min", "quickack",
                                         "congctl", "features")):
                self.unmodelled.append(f"route metrics ({' '.join(words)})")
            if head == "echo" and any("/sys/" in w for w in words):
                self.ignored.append(" ".join(words))
            return
        self.ignored.append(" ".join(words))

    # ---------------------------------------------------------------- the flow

    def local_mss(self) -> int:
        """The MSS this end advertises: the tun MTU (1500) less 40 B, or TCP_MAXSEG's."""
        return min(1460, self.maxseg) if self.maxseg else 1460

    def wscale(self) -> int:
        """The window scale Linux offers (``tcp_select_initial_window``).

        From the larger of tcp_rmem's maximum and net.core.rmem_max, or SO_RCVBUF's.
        """
        space = self.rcvbuf * 2 if self.rcvbuf else max(self.rmem[2], self.rmem_max)
        return max(0, min(14, space.bit_length() - 1 - 15))

    def flow(self, *, mss: int, sack: bool, timestamps: bool, window_scaling: bool,
             ecn: bool) -> dict[str, object]:
        """The tcplab tcp flow of this environment under the linux profile.

        With the handshake's outcome: ``mss`` payload bytes per segment, the options agreed.
        """
        rcv_buf = self.rcvbuf * 2 if self.rcvbuf else self.rmem[2]
        if not window_scaling:
            rcv_buf = min(rcv_buf, 65535)
        f: dict[str, object] = {
            "kind": "tcp", "src": "local", "dst": "remote", "profile": "linux",
            "cc": self.cc, "mss": f"{mss}B", "sack": sack, "timestamps": timestamps,
            "window_scaling": window_scaling, "ecn": ecn, "dupthresh": self.reordering,
            "restart_after_idle": self.slow_start_after_idle, "rcv_buf": f"{rcv_buf}B",
        }
        rack = self.rack and sack
        f["rack"] = rack
        f["tlp"] = rack and self.tlp
        return f


def _arith(expr: str) -> int:
    """The value of a shell's ``$((...))`` of integers, ``+ - * /`` and brackets."""
    tokens = re.findall(r"\d+|[-+*/()]", expr)
    pos = 0

    def atom() -> int:
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            v = total()
            pos += 1
            return v
        if tok == "-":
            return -atom()
        return int(tok)

    def term() -> int:
        nonlocal pos
        v = atom()
        while pos < len(tokens) and tokens[pos] in "*/":
            op = tokens[pos]
            pos += 1
            v = v * atom() if op == "*" else v // atom()
        return v

    def total() -> int:
        nonlocal pos
        v = term()
        while pos < len(tokens) and tokens[pos] in "+-":
            op = tokens[pos]
            pos += 1
            v = v + term() if op == "+" else v - term()
        return v

    return total()
