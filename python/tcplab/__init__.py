"""tcplab: a fast, validated packet-level simulator for TCP congestion-control research."""

from tcplab import presets
from tcplab._core import __version__
from tcplab.analysis import jain_index, summarize, t_interval
from tcplab.cc import (
    Bbr,
    CongestionControl,
    Cubic,
    Petra,
    Variant,
    Vegas,
    Westwood,
    WestwoodPlus,
    variants,
)
from tcplab.errors import InternalError, RoutingError, ScenarioError, TcplabError
from tcplab.results import Results
from tcplab.scenario import (
    BitErrorRate,
    Bulk,
    DropList,
    Flow,
    GilbertElliott,
    Link,
    LossModel,
    Network,
    Node,
    OnOff,
    Pcap,
    Scenario,
    Transfer,
    Uniform,
    load,
)
from tcplab.store import Store
from tcplab.sweep import Sweep, load_study

__all__ = [
    "__version__",
    "presets",
    "Bbr",
    "Cubic",
    "Petra",
    "Variant",
    "Vegas",
    "Westwood",
    "WestwoodPlus",
    "variants",
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
    "TcplabError",
    "Transfer",
    "Uniform",
    "load",
]
