"""The command line's parsers: usage errors as one line, and each option's
default said after its help where it has one to say."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn


class Parser(argparse.ArgumentParser):
    """Usage errors as one line and exit code 2, without argparse's usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


class Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """An option's default after its help, unless it has none to show
    (None, empty, a flag's False) or its help names it already; a list as
    the option is written (``month,quarter``), not as Python's repr."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        said = action.help or ""
        default = action.default
        none = default is None or default is False or default == []
        if none or "default" in said:
            return said
        if isinstance(default, list | tuple):
            # (help strings are %-formatted: a literal % doubled)
            text = ",".join(str(v) for v in default).replace("%", "%%")
            return f"{said} (default: {text})"
        return super()._get_help_string(action)


def subcommand(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=help, description=help, formatter_class=Defaults
    )
    return p
