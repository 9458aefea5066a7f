"""`inflect runs`: training runs side by side."""

from __future__ import annotations

import click

from inflect.cli.options import format_option
from inflect.cli.output import echo_tsv, output_format


@click.group("runs")
def runs() -> None:
    """Look at training runs (their folders: what `inflect train --out` wrote)."""


@runs.command("compare")
@click.argument("folders", nargs=-1, required=True, type=click.Path(exists=True))
@format_option("run, state, dev_accuracy, best_epoch, epochs, cpu_minutes, wall_minutes, then "
               "one column per setting that differs between the runs")
def runs_compare(folders, out_format):
    """Compare runs: each FOLDER's dev accuracy (its selected epoch's), epochs, CPU and wall
    minutes, and the settings in which the runs differ (hyperparameters, data, warm start,
    code version and commit), read from what the run folders record.

    Example: inflect runs compare runs/de-seed1 runs/de-seed2 runs/de-entmax. A FOLDER may also
    be a model checkpoint (.safetensors) without its run.
    """
    from inflect.nn.checkpoint import CheckpointError
    from inflect.render.tsv import tsv_table
    from inflect.training.runs import COMPARE_COLUMNS, compare_runs

    try:
        header, rows = compare_runs(folders)
    except (FileNotFoundError, CheckpointError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if output_format(out_format) == "tsv":
        echo_tsv(lambda: tsv_table(header, rows))
        return
    from rich.console import Console

    from inflect.render.tables import rows_table

    same = "every setting the same" if len(header) == len(COMPARE_COLUMNS) else None
    Console().print(rows_table(header, rows, title="runs", caption=same))
