"""Shell completion for the ``tcplab`` command, generated from its parser.

``tcplab completion bash`` (or ``zsh``) prints a script; sourcing it makes
the shell complete subcommands, their options, the values of options that
take a fixed set, study names after ``reproduce``, and file names elsewhere.
It is derived from :func:`tcplab.cli.build_parser`, so it follows the
command as it changes.
"""

from __future__ import annotations

import argparse
import shlex

SHELLS = ("bash", "zsh")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return [s for a in parser._actions for s in a.option_strings]


def _choices(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    """Each option that takes one of a fixed set of values, with the set."""
    out = {}
    for a in parser._actions:
        if a.choices and a.option_strings and not isinstance(a, argparse._SubParsersAction):
            for s in a.option_strings:
                out[s] = [str(c) for c in a.choices]
    return out


def script(shell: str, parser: argparse.ArgumentParser, studies: list[str]) -> str:
    """The completion script for ``shell`` ("bash" or "zsh")."""
    if shell not in SHELLS:
        raise ValueError(f"no completion for {shell!r}: {', '.join(SHELLS)}")
    subs = _subparsers(parser)
    words = " ".join([*subs, *_options(parser)])
    # A subcommand's first argument from a fixed set: the study names after
    # reproduce, the shells after completion.
    first = {"reproduce": studies}
    for name, sub in subs.items():
        positional = [a for a in sub._actions if not a.option_strings and a.dest != "help"]
        if positional and positional[0].choices:
            first[name] = [str(c) for c in positional[0].choices]
    cases, values = [], {}
    for name, sub in subs.items():
        cases.append(f"        {name}) opts={shlex.quote(' '.join(_options(sub)))} ;;")
        values.update(_choices(sub))
    firsts = [f'    elif [[ "${{COMP_WORDS[1]}}" == {name} && $COMP_CWORD -eq 2 ]]; then\n'
              f"        COMPREPLY=($(compgen -W {shlex.quote(' '.join(v))} -- \"$cur\"))"
              for name, v in first.items()]
    value_cases = [f"        {opt}) COMPREPLY=($(compgen -W {shlex.quote(' '.join(v))} "
                   '-- "$cur")); return ;;' for opt, v in sorted(values.items())]
    body = f"""_tcplab() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" opts=""
    if [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W {shlex.quote(words)} -- "$cur"))
        return
    fi
    case "$prev" in
{chr(10).join(value_cases)}
    esac
    case "${{COMP_WORDS[1]}}" in
{chr(10).join(cases)}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
{chr(10).join(firsts)}
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}}
complete -o filenames -F _tcplab tcplab
"""
    if shell == "zsh":
        body = "autoload -U +X bashcompinit && bashcompinit\n" + body
    return f"# tcplab {shell} completion: eval \"$(tcplab completion {shell})\"\n" + body
