"""The command line's reference page, read from the click commands themselves: every command and
sub-command with its usage, help, arguments and options, and the exit codes the group lists."""

from __future__ import annotations

import inspect
import re

import click

_EXIT_CODE = re.compile(r"^\s+(\d+)\s+(.+)$")


def _help_text(text: str | None) -> str:
    """A command's help as Markdown paragraphs: click's no-rewrap marks dropped, reST literals as code."""
    lines = [line for line in inspect.cleandoc(text or "").splitlines() if line.strip() != "\b"]
    return "\n".join(lines).replace("``", "`").strip()


def _cell(text: str) -> str:
    return " ".join(text.replace("``", "`").split()).replace("|", "\\|")


def _given(value) -> bool:
    """Whether a default or flag value is one (click marks an absent one with a sentinel of its own)."""
    return value is not None and type(value).__name__ != "Sentinel"


def _option_details(param: click.Option, context: click.Context) -> list[str]:
    """What ``--help`` leaves to the type and the default: the range, the choices, the default, repeatable."""
    details = []
    if isinstance(param.type, click.types._NumberRangeBase):
        details.append(f"range: `{param.type._describe_range()}`")
    if isinstance(param.type, click.Choice):
        details.append("one of " + ", ".join(f"`{choice}`" for choice in param.type.choices))
    default = param.get_default(context, call=False)
    if _given(default) and not callable(default) and not param.is_flag and default != ():
        details.append(f"default: `{default}`")
    if not param.is_flag and _given(param.flag_value):
        details.append("its value may be left out")
    if param.multiple:
        details.append("may be repeated")
    if param.required:
        details.append("required")
    return details


def _arguments(command: click.Command, context: click.Context) -> list[str]:
    rows = []
    for param in command.params:
        if isinstance(param, click.Argument):
            many = " (one or more)" if param.nargs == -1 else ""
            rows.append(f"- `{param.human_readable_name}`{many}: {param.type.name}{'' if param.required else ', optional'}")
    return ["**Arguments**\n", *rows, ""] if rows else []


def _options(command: click.Command, context: click.Context) -> list[str]:
    rows = ["| option | description |", "|---|---|"]
    for param in command.get_params(context):
        if not isinstance(param, click.Option) or param.hidden:
            continue
        names = ", ".join(f"`{name}`" for name in (*param.opts, *param.secondary_opts))
        metavar = "" if param.is_flag and not param.metavar else f" `{param.make_metavar(context)}`"
        details = "; ".join(_option_details(param, context))
        rows.append(f"| {names}{metavar} | {_cell(param.help or '')}{' (' + details + ')' if details else ''} |")
    return ["**Options**\n", *rows, ""]


def command_reference(command: click.Command, path: str, level: int = 2) -> list[str]:
    """The sections of ``command`` (called ``path`` on the command line) and of its sub-commands, sorted."""
    context = click.Context(command, info_name=path)
    usage = " ".join([path, *command.collect_usage_pieces(context)])
    anchor = path.replace(" ", "-")
    parts = [f"{'#' * level} `{path}` {{#{anchor}}}\n", f"```\n{usage}\n```\n", _help_text(command.help) + "\n"]
    parts += _arguments(command, context) + _options(command, context)
    if isinstance(command, click.Group):
        for name in sorted(command.list_commands(context)):
            sub = command.get_command(context, name)
            if sub is not None and not sub.hidden:
                parts += command_reference(sub, f"{path} {name}", level + 1)
    return parts


def exit_codes(group: click.Group) -> list[tuple[int, str]]:
    """The exit codes the group's epilog lists (what ``alc-dask --help`` prints), code and meaning."""
    return [(int(match[1]), match[2].strip()) for line in (group.epilog or "").splitlines() if (match := _EXIT_CODE.match(line))]


def cli_reference(group: click.Group | None = None, name: str = "alc-dask") -> str:
    """The reference of every command of ``group`` (default: ``alc-dask``), then its exit codes."""
    if group is None:
        from alc_dask.cli import main as group
    parts = command_reference(group, name)
    parts += ["## Exit codes {#exit-codes}\n", f"As `{name} --help` lists them:\n", "| code | meaning |", "|---:|---|"]
    parts += [f"| {code} | {_cell(meaning)} |" for code, meaning in exit_codes(group)]
    return "\n".join(parts) + "\n"
