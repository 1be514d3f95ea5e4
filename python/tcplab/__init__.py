"""tcplab: a fast, validated packet-level simulator for TCP congestion-control research."""

from typing import Any

from tcplab import presets
from tcplab._core import __version__
from tcplab._defaults import CI_LEVEL
from tcplab.cc import (
    Bbr,
    CongestionControl,
    Cubic,
    Dctcp,
    Petra,
    Variant,
    Vegas,
    Westwood,
    WestwoodPlus,
    variants,
)
from tcplab.errors import (
    InternalError,
    RoutingError,
    ScenarioError,
    StoreError,
    SweepError,
    SweepInterrupted,
    TcplabError,
)
from tcplab.results import Results
from tcplab.scenario import (
    BitErrorRate,
    Bulk,
    DropList,
    Flow,
    GilbertElliott,
    Group,
    Link,
    LossModel,
    Network,
    Node,
    OnOff,
    Pcap,
    Poisson,
    Scenario,
    Transfer,
    Uniform,
    UniformStart,
    Workload,
    load,
    read_cdf,
)
from tcplab.schema import schema

# The analysis, sweep and store modules need pandas (and pyarrow, when
# installed: about 90 MB of memory together); they load on first use, so that
# `tcplab run` and a plain simulation stay small.
_LAZY = {
    "fct_summary": "tcplab.analysis",
    "jain_index": "tcplab.analysis",
    "summarize": "tcplab.analysis",
    "t_interval": "tcplab.analysis",
    "Store": "tcplab.store",
    "Sweep": "tcplab.sweep",
    "load_study": "tcplab.sweep",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tcplab' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "__version__",
    "CI_LEVEL",
    "presets",
    "schema",
    "Bbr",
    "Cubic",
    "Dctcp",
    "Petra",
    "Variant",
    "Vegas",
    "Westwood",
    "WestwoodPlus",
    "variants",
    "fct_summary",
    "jain_index",
    "load_study",
    "summarize",
    "t_interval",
    "Store",
    "Sweep",
    "BitErrorRate",
    "CongestionControl",
    "Bulk",
    "DropList",
    "Flow",
    "GilbertElliott",
    "Group",
    "InternalError",
    "Link",
    "LossModel",
    "Network",
    "Node",
    "OnOff",
    "Pcap",
    "Results",
    "RoutingError",
    "Scenario",
    "ScenarioError",
    "StoreError",
    "SweepError",
    "SweepInterrupted",
    "TcplabError",
    "Transfer",
    "Poisson",
    "Workload",
    "read_cdf",
    "Uniform",
    "UniformStart",
    "load",
]
