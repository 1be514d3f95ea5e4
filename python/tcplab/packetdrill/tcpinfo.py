"""``%{ }%`` assertions: the ``tcp_info`` fields tcplab keeps, in Linux's units.

Linux counts ``tcp_info``'s windows and queues in packets and its times in microseconds;
tcplab keeps bytes and nanoseconds. :func:`fields` converts what the connection reports
(``_core.Drill.info``); :func:`check` runs a script's Python over them when every
``tcpi_*`` name it uses is kept.
"""

from __future__ import annotations

import re
from typing import Any

#: Linux's TCP_CA_* states and the numbers tcp_info gives them.
CA_STATES = {"Open": 0, "Disorder": 1, "Cwr": 2, "Recovery": 3, "Loss": 4}
CONSTANTS = {f"TCP_CA_{k if k != 'Cwr' else 'CWR'}": v for k, v in CA_STATES.items()}
#: Linux's "no ssthresh yet" (TCP_INFINITE_SSTHRESH).
INFINITE_SSTHRESH = 0x7FFFFFFF


def _up(x: Any, mss: int) -> int:
    return -(-int(x) // mss)


def fields(i: dict[str, Any] | None) -> dict[str, int]:
    """The ``tcpi_*`` fields of the connection's state ``i`` (empty before it opens)."""
    if i is None:
        return {}
    mss = max(1, int(i["mss"]))
    ssthresh = int(i["ssthresh"])
    out = {
        "tcpi_snd_cwnd": int(i["cwnd"]) // mss,
        "tcpi_snd_ssthresh": (INFINITE_SSTHRESH if ssthresh >= INFINITE_SSTHRESH * mss
                              else ssthresh // mss),
        "tcpi_ca_state": CA_STATES[str(i["ca_state"])],
        "tcpi_unacked": _up(int(i["snd_max"]) - int(i["snd_una"]), mss),
        "tcpi_sacked": _up(i["sacked"], mss),
        "tcpi_lost": _up(i["lost"], mss),
        "tcpi_reordering": int(i["dupthresh"]),
        "tcpi_rto": int(i["rto"]) // 1000,
        "tcpi_backoff": int(i["backoffs"]),
        "tcpi_snd_mss": mss,
        "tcpi_total_retrans": int(i["retransmitted"]),
        "tcpi_bytes_acked": max(0, int(i["snd_una"]) - 1),
        "tcpi_bytes_received": int(i["received"]),
    }
    if i["retrans"] is not None:
        out["tcpi_retrans"] = _up(i["retrans"], mss)
    if i["srtt"] is not None:
        out["tcpi_rtt"] = int(i["srtt"]) // 1000
        out["tcpi_rttvar"] = int(i["rttvar"]) // 1000
    if i["min_rtt"] is not None:
        out["tcpi_min_rtt"] = int(i["min_rtt"]) // 1000
    return out


def check(code: str, info: dict[str, int]) -> str | None:
    """Runs an assertion block over ``info``.

    "" if it holds; the fields it names, with their values, if it fails; None if it names
    a field tcplab does not keep (or cannot be evaluated here).
    """
    names = {w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code) if w.startswith("tcpi_")}
    if not names <= info.keys():
        return None
    try:
        exec(compile(code, "<assertion>", "exec"), {"__builtins__": {}}, {**CONSTANTS, **info})
    except AssertionError:
        return ", ".join(f"{n} = {info[n]}" for n in sorted(names))
    except Exception:  # noqa: BLE001 - a script's Python this evaluation cannot run
        return None
    return ""
