"""Where a command's results go: the output format chosen (a table on a terminal, TSV in a
pipe), TSV text, and records streamed as they come with their warnings and errors."""

from __future__ import annotations

import contextlib
import os

import click


def output_format(chosen: str | None) -> str:
    """The --format given, else ``table`` on a terminal and ``tsv`` in a pipe."""
    import sys

    return chosen or ("table" if sys.stdout.isatty() else "tsv")


def say_blank(source: str, number: int) -> None:
    """On stderr: a blank input line was skipped."""
    click.echo(f"warning: {source}:{number}: blank line skipped", err=True)


def say_header(source: str, number: int, line: str) -> None:
    """On stderr: a header line (it names the columns) was skipped."""
    click.echo(f"warning: {source}:{number}: a header line, skipped "
               f"({' '.join(line.split(chr(9)))})", err=True)


def echo_tsv(render) -> None:
    """Print ``render()`` (TSV text); a field it cannot write is a clear error."""
    try:
        text = render()
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(text, nl=False)


def stream_records(records, fmt, renderers, table, errors, tsv_header) -> None:
    """Write each record as it comes (a rich table, or its lines flushed per record; TSV after a
    header line), warnings to stderr (each text once; a table shows them itself); an error record
    (:class:`inflect.inference.outcomes.ErrorRecord`) is written in its place and its message goes to
    stderr, and the command ends with status 1 after the last record when there was one; an
    error raised (``--strict``) ends it at once, what was written stays written."""
    import sys

    from inflect.inference.outcomes import ErrorRecord

    console = None
    if fmt == "table":
        from inflect.render.common import fitted, terminal_console

        console = terminal_console()
    failed, first, seen = 0, None, set()
    try:
        if fmt == "tsv":
            sys.stdout.write("\t".join(tsv_header) + "\n")
        for record in records:
            is_error = isinstance(record, ErrorRecord)
            if console is not None:
                console.print(fitted(table(record)))
            else:
                text = renderers[fmt](record)
                if text is not None:
                    sys.stdout.write(text + "\n")
                sys.stdout.flush()
            if is_error:
                failed += 1
                first = first or record.message
                if console is None:
                    click.echo(f"error: {record.message}", err=True)
                continue
            if console is not None:
                continue  # the table shows the record's warnings: not again on stderr
            where = f"{record.where}: " if record.where is not None else ""
            for note in record.warnings:
                if note not in seen:  # once per text (a feature, a symbol of a lemma)
                    seen.add(note)
                    click.echo(f"warning: {where}{note}", err=True)
    except BrokenPipeError:  # e.g. `inflect predict ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(1) from None
    except errors as exc:
        from inflect.io.stdio import stream_problem

        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        raise click.ClickException(stream_problem(exc) or str(exc)) from None
    if failed:
        plural = "s" if failed > 1 else ""
        raise click.ClickException(f"{failed} input{plural} got no answer (the first: {first})")
