"""The package's exports checked against the core's registries (issue 53):
every variant class is in ``_LAZY`` under its own module (where ``tl.NAME``
finds it) and in ``__all__``, every other ``_LAZY`` name too, the type
checkers' imports are ``_LAZY``'s, the stub lists what the extension
exports, and every recovery and queue discipline the core knows is named
where a user looks for it. tests/test_listings.py checks that every core
variant has its class and that ``from tcplab import *`` resolves every
name."""

import ast
import importlib
import inspect
from pathlib import Path

import pytest
import tcplab as tl
from tcplab import _core
from tcplab.cc import Variant

ROOT = Path(__file__).resolve().parent.parent
INIT = ROOT / "python" / "tcplab" / "__init__.py"
#: The modules whose public classes and functions are the package's API.
VARIANT_MODULES = ["tcplab.cc", "tcplab.cc_linux"]


def _variant_classes() -> dict[str, type]:
    """Every public Variant subclass the variant modules define, by class name."""
    found = {}
    for name in VARIANT_MODULES:
        module = importlib.import_module(name)
        for cls_name, cls in vars(module).items():
            if (inspect.isclass(cls) and issubclass(cls, Variant) and cls is not Variant
                    and cls.__module__ == name and not cls_name.startswith("_")):
                found[cls_name] = cls
    return found


def _submodules() -> set[str]:
    return {k for k, v in tl._LAZY.items() if v == f"tcplab.{k}"}


def test_every_variant_class_is_in_lazy_and_all():
    for cls_name, cls in _variant_classes().items():
        assert tl._LAZY.get(cls_name) == cls.__module__, \
            f"{cls_name}: _LAZY[{cls_name!r}] must be {cls.__module__!r}"
        assert cls_name in tl.__all__, f"{cls_name} is missing from tcplab.__all__"
        assert getattr(tl, cls_name) is cls


def test_every_lazy_name_but_a_submodule_is_in_all_and_resolves():
    for name, module in tl._LAZY.items():
        value = getattr(tl, name)
        if name in _submodules():
            assert inspect.ismodule(value) and value.__name__ == module
            continue
        assert name in tl.__all__, f"_LAZY's {name!r} is missing from tcplab.__all__"
        assert value is getattr(importlib.import_module(module), name)


def test_every_error_class_imported_eagerly_is_in_all():
    tree = ast.parse(INIT.read_text())
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "tcplab.errors":
            for alias in node.names:
                assert alias.name in tl.__all__, f"{alias.name} is missing from __all__"


def test_all_has_no_duplicates_and_every_name_resolves():
    assert len(tl.__all__) == len(set(tl.__all__))
    for name in tl.__all__:
        assert getattr(tl, name) is not None, name
    assert set(tl.__all__) <= set(dir(tl))


def test_the_type_checkers_imports_are_lazys():
    """The names under ``if TYPE_CHECKING:`` (what editors and mypy see) are
    exactly ``_LAZY``'s, each from the module ``_LAZY`` loads it from."""
    tree = ast.parse(INIT.read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If)
                 and getattr(n.test, "id", "") == "TYPE_CHECKING")
    seen = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom)
        for alias in node.names:
            module = f"tcplab.{alias.name}" if node.module == "tcplab" else node.module
            seen[alias.name] = module
    assert seen == tl._LAZY


def test_the_stub_lists_what_the_extension_exports():
    stub = ast.parse((ROOT / "python" / "tcplab" / "_core.pyi").read_text())
    declared = set()
    for node in stub.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.add(node.target.id)
    exported = {n for n in dir(_core) if not (n.startswith("__") and n != "__version__")}
    assert exported - declared == set(), "exported by _core, missing from _core.pyi"
    assert declared - exported == set(), "in _core.pyi, not exported by _core"


@pytest.mark.parametrize("kind", ["recoveries", "queues"])
def test_every_recovery_and_queue_discipline_is_named_for_users(kind):
    """Recoveries and queue disciplines are named by strings, not classes:
    each the core knows is named in ``Network.tcp``'s documentation of
    ``recovery``, or in docs/scenarios.md's queues."""
    if kind == "recoveries":
        text = inspect.getdoc(tl.Network.tcp) or ""
    else:
        text = (ROOT / "docs" / "scenarios.md").read_text()
    names = tl.schema()[kind]
    assert names
    missing = [n for n in names if f'"{n}"' not in text]
    assert not missing, f"{kind} not named: {missing}"
