"""The ``memreport`` group: ``memreport FILE...`` runs the report command, ``memreport COMMAND`` the others;
a signal, a closed pipe or a bug ends a run with one line and its exit code."""
from __future__ import annotations

import click

from ..run import command_meant
from ..signals import run_ends
from .shared import fail

COMMANDS = ("report", "diff", "trend", "compiles", "export")  # in the order --help lists them


class DefaultGroup(click.Group):
    """``memreport FILE...`` runs the report command; ``memreport diff ...`` the others."""

    default_command = "report"

    def parse_args(self, ctx, args):
        if not args or args[0] not in self.commands:
            if args and command_meant(args[0], COMMANDS):  # neither a file nor a command: a command mistyped
                raise click.UsageError(f"{args[0]}: no such file or command; did you mean "
                                       f"'memreport {command_meant(args[0], COMMANDS)}'?", ctx)
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        """Run the command: a signal, a closed pipe or a bug ends it as :func:`memreport.signals.run_ends` says."""
        with run_ends(fail, keep=(click.ClickException, click.exceptions.Exit, click.exceptions.Abort)):
            return super().invoke(ctx)


class ReportCommand(click.Command):
    """The default command, shown to users as plain ``memreport``; its help lists the other commands."""

    def make_context(self, info_name, args, parent=None, **extra):
        # Detached from the group so usage lines and hints read "memreport", not "memreport report".
        return super().make_context("memreport", args, None, **extra)

    def format_help(self, ctx, formatter):
        super().format_help(ctx, formatter)
        rows = [(name, main.commands[name].get_short_help_str(limit=70)) for name in COMMANDS
                if name != self.name and name in main.commands]
        with formatter.section("Commands (memreport COMMAND --help for each)"):
            formatter.write_dl(rows)
        formatter.write_paragraph()
        formatter.write_text("A file whose name is a command's is reported with a path: memreport ./diff")


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """memreport: per-tile memory of Graphcore IPU programs."""
