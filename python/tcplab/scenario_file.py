"""A scenario as plain data: from a :class:`~tcplab.Network`, a dict, or a TOML or JSON file.

Checking and running it need only this module, the core and the results,
not the builder's element classes: `tcplab run` imports no more.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab import _core
from tcplab.cdf import read_cdf_files
from tcplab.errors import ScenarioError
from tcplab.scenario_io import (
    python_flows,
    read_text_file,
    resolve_trace_paths,
    scenario_json,
    toml_line,
)

if TYPE_CHECKING:
    from tcplab.elements import Pcap, Quantity
    from tcplab.results import Results


class Scenario:
    """A scenario as plain data, from a :class:`Network`, a dict or a TOML file."""

    def __init__(self, data: dict[str, Any], custom: dict[int, Any] | None = None) -> None:
        if not isinstance(data, dict):
            raise ScenarioError(f"a scenario is a dict of fields, not {type(data).__name__}",
                                "", f"not a dict but {type(data).__name__}", "a dict of fields")
        self.data = data
        #: Python congestion controllers (flows whose cc is "python"), by their entry in ``flows``.
        self.custom: dict[int, Any] = dict(custom or {})
        #: (file, text) when read from a TOML file: errors then name its line.
        self.source: tuple[str, str] | None = None
        #: Top-level fields set from elsewhere (a command-line flag), by the name to blame.
        self.set_by: dict[str, str] = {}

    @classmethod
    def from_toml(cls, path: str | Path) -> Scenario:
        """Read a scenario from a TOML file (or a JSON file, by its suffix).

        Any file that cannot be read as a scenario (missing, a directory, not
        UTF-8, not valid TOML or JSON, nested too deeply) is refused with one
        :class:`ScenarioError` that says what is wrong with it.
        """
        p = Path(path)
        text = read_text_file(p, "scenario file")
        try:
            if p.suffix == ".json":
                data = json.loads(text)
            else:
                import tomllib  # here: 12 ms that a JSON scenario need not pay

                data = tomllib.loads(text)
        except ValueError as e:  # TOMLDecodeError and JSONDecodeError are ValueErrors
            kind = "JSON" if p.suffix == ".json" else "TOML"
            raise ScenarioError(f"{p}: not valid {kind}: {e}", "", f"not valid {kind}: {e}",
                                None) from None
        except RecursionError:
            raise ScenarioError(f"{p}: nested too deeply", "", "nested too deeply",
                                "at most a few hundred levels") from None
        if not isinstance(data, dict):
            raise ScenarioError(f"{p}: a scenario is a table of fields, not a "
                                f"{type(data).__name__}", "", "not a table of fields")
        read_cdf_files(data, p.parent)
        resolve_trace_paths(data, p.parent)
        sc = cls(data)
        sc.source = (str(p), text)
        return sc

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the scenario data."""
        return copy.deepcopy(self.data)

    def to_json(self) -> str:
        """The scenario as JSON text (the form the core reads; see :func:`plain`)."""
        return scenario_json(self.data)

    def replace(self, **fields: Any) -> Scenario:
        """A copy with top-level fields replaced (``seed=2``, ``duration="10s"``)."""
        d = self.to_dict()
        d.update({k: v for k, v in fields.items() if v is not None})
        sc = Scenario(d, custom=self.custom)
        sc.source = self.source
        sc.set_by = dict(self.set_by)
        return sc

    def _located(self, e: ScenarioError) -> ScenarioError:
        """``e`` with the file and line of its field, when read from a TOML file.

        A field set by a command-line flag (see :attr:`set_by`) is blamed on
        the flag, never on the file's line.
        """
        flag = self.set_by.get(e.path)
        if flag is not None:
            out = type(e).__new__(type(e))
            out.__dict__.update(e.__dict__)
            text = e.args[0]
            if text.startswith(f"{e.path}:"):
                text = flag + text[len(e.path):]
            out.args = (text, *e.args[1:])
            return out
        if self.source is None or not e.path:
            return e
        file, text = self.source
        line = None if file.endswith(".json") else toml_line(text, e.path)
        if line is None:
            return e
        out = type(e).__new__(type(e))
        out.__dict__.update(e.__dict__)
        out.args = (f"{e.args[0]} [{file}, line {line}]", *e.args[1:])
        return out

    def _controllers(self, imports: bool = True) -> dict[int, Any] | None:
        """The Python controllers: the objects given, and those named by import path.

        With ``imports`` False, a class named by import path is not imported
        (that would run its module's code): a stand-in takes its place.
        """
        if not self.custom and not python_flows(self.data):
            return None  # no flow's cc is written in Python (tcplab.cc costs 10 ms to import)
        from tcplab.cc import controllers_for, stand_ins_for

        if not imports:
            return stand_ins_for(self.data, self.custom) or None
        return controllers_for(self.data, self.custom) or None

    def check_text(self) -> str:
        """As :meth:`check`, as the indented JSON text `tcplab check` prints.

        The core writes the text itself, after it has freed the network it
        built, so checking a large scenario takes less memory than running
        it.
        """
        try:
            return _core.check_json(self.data, self._controllers(imports=False), pretty=True)
        except ScenarioError as e:
            raise self._located(e) from None

    def check(self) -> dict[str, Any]:
        """Check the scenario without running it; return it with every default filled in.

        Checking runs no code of the scenario's: a congestion control named
        by import path (``{ name = "python", class = "mycc:Aimd" }``) is not
        imported, so its module, its arguments and its hooks are checked
        only when the scenario runs.
        """
        try:
            return json.loads(_core.check_json(self.data, self._controllers(imports=False)))
        except ScenarioError as e:
            raise self._located(e) from None

    def run(
        self,
        *,
        duration: Quantity | None = None,
        seed: int | None = None,
        run: int | None = None,
        trace: list[str] | None = None,
        interval: Quantity | None = None,
        pcap: Pcap | None = None,
        memory_budget: Quantity | None = None,
        delay_percentiles: bool | None = None,
        progress: Callable[[float, int], Any] | None = None,
    ) -> Results:
        """Check and run the scenario to completion.

        Takes the same run settings as :meth:`Network.run` (``seed``,
        ``duration``, ``trace``...); each one given replaces the scenario's
        own for this run, so that a preset runs as a network does:
        ``tl.presets.westwood().run(seed=2, trace=["cwnd"])``.

        ``progress``, if given, is called about twice a second of wall time
        with the simulated seconds and the events so far (`tcplab run`
        shows them on a terminal); an exception it raises stops the run and
        is raised here.

        Raises:
            ScenarioError: a field is wrong (before anything runs).
            InternalError: a tcplab bug.
        """
        from tcplab.results import Results

        given = {"duration": duration, "seed": seed, "run": run, "interval": interval,
                 "memory_budget": memory_budget, "delay_percentiles": delay_percentiles}
        if trace is not None:
            given["trace"] = list(trace) if isinstance(trace, list | tuple) else trace
        if pcap is not None:
            given["pcap"] = pcap.to_dict()
        if any(v is not None for v in given.values()):
            return self.replace(**given).run(progress=progress)
        try:
            # The core reads the data directly (JSON text when it is not plain).
            out = _core.run_json(self.data, self._controllers(), progress)
        except ScenarioError as e:
            raise self._located(e) from None
        return Results(out)

    def __repr__(self) -> str:
        return f"Scenario({self.data!r})"

    def _repr_html_(self) -> str:
        """The scenario at a glance (notebooks): its settings, links and flows."""
        from tcplab.display import scenario_html

        return scenario_html(self.data)



def load(path: str | Path) -> Scenario:
    """Read a scenario file (TOML, or JSON by suffix)."""
    return Scenario.from_toml(path)

