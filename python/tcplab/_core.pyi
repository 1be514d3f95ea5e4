__version__: str

from collections.abc import Callable
from typing import Any

def run_json(
    scenario: str, custom: dict[int, Any] | None = None,
    progress: Callable[[float, int], Any] | None = None,
) -> dict[str, Any]: ...
def schema_json() -> str: ...
def profiles_json() -> str: ...

class Column:
    """A result column's values, held by the core (numpy reads them in place)."""

    def __len__(self) -> int: ...
    @property
    def __array_interface__(self) -> dict[str, Any]: ...
    def tobytes(self) -> bytes: ...

class EffectiveScenario:
    def json(self) -> str: ...
def check_json(
    scenario: Any, custom: dict[int, Any] | None = None, pretty: bool = False
) -> str: ...
def _panic_for_tests() -> None: ...
def parse_rate(s: str) -> int: ...
def parse_duration(s: str) -> int: ...
def parse_size(s: str) -> int: ...
def variants_json() -> str: ...
def bench_event_loop(events: int, pending: int) -> tuple[float, int]: ...

class Tcb:
    cwnd: int
    ssthresh: int
    mss: int
    state: str
    bytes_in_flight: int
    snd_una: int
    snd_nxt: int
    srtt: float | None
    min_rtt: float | None
    latest_rtt: float | None
    now: float
    def in_slow_start(self) -> bool: ...

class Ack:
    bytes_acked: int
    segments_acked: int
    is_dup: bool
    rtt: float | None
    now: float
