"""The root ``inflect`` group: its help, ``--version``, and the one place where a broken standard
stream becomes a one-line error (the commands are added in :mod:`inflect.cli`)."""

from __future__ import annotations

import contextlib
import errno
import os

import click

from inflect import __version__

#: The exit status of every command (README, "Exit status"): 0 done; 1 an error, or inputs
#: that got no answer (each reported, the others answered); 2 a usage error; 130 interrupted.
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
#: Every status a command may end with.
EXIT_STATUSES = frozenset({0, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED})


class InflectGroup(click.Group):
    """The ``inflect`` group: the one place where every command's end becomes one of the
    README's exit statuses (:data:`EXIT_STATUSES`), whichever command meets it: Ctrl-C
    (:class:`KeyboardInterrupt`, wherever raised) is 130; a closed or broken standard stream
    (``<&-``, ``>&-``, a pipe whose reader went away) a one-line error with status 1, not a
    traceback; a library's own status (uvicorn's 3 for a server that did not start) is 1."""

    def main(self, *args, **kwargs):
        from inflect.io.stdio import guard_standard_streams

        guard_standard_streams()
        return super().main(*args, **kwargs)

    def make_context(self, info_name, args, parent=None, **extra):
        """The root context, with the arguments as given in ``ctx.meta["inflect.argv"]`` (what
        a checkpoint records as the command that trained it)."""
        given = list(args)
        ctx = super().make_context(info_name, args, parent=parent, **extra)
        ctx.meta["inflect.argv"] = given
        return ctx

    def invoke(self, ctx: click.Context):
        import sys

        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            # every command the same way (README, "Exit status"): what was written stays
            # written, and the status says it was interrupted (128 + SIGINT)
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
            click.echo("\ninterrupted (Ctrl-C): what was written before it is kept", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except SystemExit as exc:  # sys.exit(N) of a library: its cause is already logged
            if isinstance(exc.code, int) and exc.code not in EXIT_STATUSES:
                raise click.exceptions.Exit(EXIT_ERROR) from None
            raise
        except (OSError, ValueError) as exc:
            from inflect.io.stdio import stream_problem

            problem = stream_problem(exc)
            if problem is None:
                raise
            if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
                # the reader went away: quiet the flush at exit (no "Exception ignored")
                with contextlib.suppress(OSError, ValueError):
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise click.ClickException(problem) from None


@click.group(cls=InflectGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="inflect")
def main() -> None:
    """Morphological inflection with sparse sequence-to-sequence models.

    Given a lemma, a UniMorph tag bundle and a language, produce the inflected form, with every
    form the model considers possible, its probability, and a certificate when beam search was
    provably exact.
    """
