"""tcplab: a fast, validated packet-level simulator for TCP congestion-control research."""

from tcplab._core import __version__
from tcplab.errors import InternalError, RoutingError, ScenarioError, TcplabError
from tcplab.results import Results
from tcplab.scenario import (
    BitErrorRate,
    DropList,
    Flow,
    GilbertElliott,
    Link,
    LossModel,
    Network,
    Node,
    Scenario,
    Uniform,
    load,
)

__all__ = [
    "__version__",
    "BitErrorRate",
    "DropList",
    "Flow",
    "GilbertElliott",
    "InternalError",
    "Link",
    "LossModel",
    "Network",
    "Node",
    "Results",
    "RoutingError",
    "Scenario",
    "ScenarioError",
    "TcplabError",
    "Uniform",
    "load",
]
