"""The ``memreport`` group: ``memreport FILE...`` runs the report command, ``memreport COMMAND`` the others;
a signal, a closed pipe or a bug ends a run with one line and its exit code."""
from __future__ import annotations

import contextlib
import os
import signal
import sys

import click

from ..signals import SIGPIPE, Terminated, signals_end_the_run
from .shared import fail, unexpected

COMMANDS = ("report", "diff", "compiles", "export")  # in the order --help lists them


class DefaultGroup(click.Group):
    """``memreport FILE...`` runs the report command; ``memreport diff ...`` the others."""

    default_command = "report"

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and not os.path.lexists(args[0]):
            import difflib
            close = difflib.get_close_matches(args[0], [c for c in self.commands if c != self.default_command], 1)
            if close:  # neither a file nor a command: a command mistyped, most likely
                raise click.UsageError(f"{args[0]}: no such file or command; did you mean 'memreport {close[0]}'?",
                                       ctx)
        if not args or args[0] not in self.commands:
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        """Run the command; a signal or a closed pipe ends it with 128 + N, temporary files removed."""
        with signals_end_the_run():
            try:
                return super().invoke(ctx)
            except Terminated as exc:  # the stack has unwound: every temporary file is gone
                sys.exit(128 + exc.signum)
            except KeyboardInterrupt:
                sys.exit(128 + signal.SIGINT)
            except BrokenPipeError:  # the reader of stdout has gone (| head): end quietly, as SIGPIPE would
                with contextlib.suppress(OSError, ValueError, AttributeError):
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
                sys.exit(128 + SIGPIPE)
            except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
                raise
            except MemoryError:  # outside the readers, which say so themselves: rendering a pod, say
                fail("out of memory (MemoryError): the run needs more memory than this process may use")
            except Exception as exc:  # noqa: BLE001 - the last resort: one line, never a traceback
                fail(unexpected(exc))


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
