"""tcplab: a fast, validated packet-level simulator for TCP congestion-control research."""

from typing import TYPE_CHECKING, Any

from tcplab._core import __version__
from tcplab._defaults import CI_LEVEL
from tcplab.errors import (
    InternalError,
    RoutingError,
    ScenarioError,
    StoreError,
    SweepError,
    SweepInterrupted,
    TcplabError,
)
from tcplab.schema import schema  # eager: the submodule of the same name would shadow it

if TYPE_CHECKING:  # what the lazy names below are, for type checkers and editors
    from tcplab import (  # submodules, loaded on first use (_LAZY)
        analysis,  # noqa: F401
        cc,  # noqa: F401
        cc_linux,  # noqa: F401
        cdf,  # noqa: F401
        packetdrill,  # noqa: F401
        plot,  # noqa: F401
        presets,
        results,  # noqa: F401
        scenario,  # noqa: F401
        scenario_file,  # noqa: F401
        store,  # noqa: F401
        studies,  # noqa: F401
        sweep,  # noqa: F401
        traces,  # noqa: F401
        validation,  # noqa: F401
    )
    from tcplab.analysis import fct_summary, jain_index, summarize, t_interval
    from tcplab.cc import (
        Bbr,
        CongestionControl,
        Cubic,
        Dctcp,
        NewReno,
        Petra,
        Reno,
        Sack,
        Tahoe,
        Variant,
        Vegas,
        Westwood,
        WestwoodPlus,
        variants,
    )
    from tcplab.cc_linux import (
        Bic,
        Cdg,
        HighSpeed,
        Htcp,
        Hybla,
        Illinois,
        Ledbat,
        Lp,
        Nv,
        Scalable,
        Veno,
        Yeah,
    )
    from tcplab.cdf import read_cdf
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
        Trace,
        Transfer,
        Uniform,
        UniformStart,
        Workload,
    )
    from tcplab.scenario_file import Scenario, load
    from tcplab.store import Store
    from tcplab.sweep import Sweep, load_study

# Everything else loads on first use: `tcplab run` then imports only what a
# run needs (the scenario, the core, the results' text table), not the
# builder's element classes, the presets, or pandas and numpy (the analysis,
# sweep and store modules; about 90 MB of memory with pyarrow).
_LAZY = {
    **dict.fromkeys(["Bbr", "CongestionControl", "Cubic", "Dctcp", "NewReno", "Petra", "Reno",
                     "Sack", "Tahoe", "Variant", "Vegas", "Westwood", "WestwoodPlus",
                     "variants"], "tcplab.cc"),
    **dict.fromkeys(["Bic", "Cdg", "HighSpeed", "Htcp", "Hybla", "Illinois", "Ledbat", "Lp",
                     "Nv", "Scalable", "Veno", "Yeah"], "tcplab.cc_linux"),
    **dict.fromkeys(["BitErrorRate", "Bulk", "DropList", "Flow", "GilbertElliott", "Group",
                     "Link", "LossModel", "Network", "Node", "OnOff", "Pcap", "Poisson",
                     "Trace", "Transfer", "Uniform", "UniformStart", "Workload"],
                    "tcplab.scenario"),
    "Scenario": "tcplab.scenario_file",
    "load": "tcplab.scenario_file",
    "read_cdf": "tcplab.cdf",
    "Results": "tcplab.results",
    "presets": "tcplab.presets",
    "fct_summary": "tcplab.analysis",
    "jain_index": "tcplab.analysis",
    "summarize": "tcplab.analysis",
    "t_interval": "tcplab.analysis",
    "Store": "tcplab.store",
    "Sweep": "tcplab.sweep",
    "load_study": "tcplab.sweep",
    # Submodules, as the docs write them (`tl.plot.cdf(...)`, `tl.studies`):
    # each loads on first use, as `import tcplab.plot` would.
    **{m: f"tcplab.{m}" for m in ["analysis", "cc", "cc_linux", "cdf", "packetdrill", "plot",
                                  "results", "scenario", "scenario_file", "store", "studies",
                                  "sweep", "traces", "validation"]},
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tcplab' has no attribute {name!r}")
    import importlib

    loaded = importlib.import_module(module)
    value = loaded if module == f"tcplab.{name}" else getattr(loaded, name)
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
    "NewReno",
    "Petra",
    "Reno",
    "Sack",
    "Tahoe",
    "Variant",
    "Vegas",
    "Westwood",
    "WestwoodPlus",
    "Bic",
    "Cdg",
    "HighSpeed",
    "Htcp",
    "Hybla",
    "Illinois",
    "Ledbat",
    "Lp",
    "Nv",
    "Scalable",
    "Veno",
    "Yeah",
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
    "Trace",
    "Transfer",
    "Poisson",
    "Workload",
    "read_cdf",
    "Uniform",
    "UniformStart",
    "load",
]
