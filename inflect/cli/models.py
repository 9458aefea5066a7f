"""`inflect models`: the shipped models by language, then the commands that trained them."""

from __future__ import annotations

import click

from inflect.cli.options import models_dir_option
from inflect.cli.output import output_format


@click.command("models")
@click.option("--format", "out_format", type=click.Choice(["table", "tsv"]), default=None,
              help="table (default on a terminal) or tsv (default in a pipe: language, model, "
                   "members (their number, as in the table), member_files, dev_accuracy, "
                   "setting, size_bytes, method, data, commands, start_commands, start_note; with a "
                   "header).")
@click.option("--all", "every", is_flag=True, default=False,
              help="Every model of every language (not only the default `inflect predict` uses).")
@click.option("--commands", "commands", is_flag=True, default=False,
              help="After the table, how each model was trained: its data and the commands that "
                   "made it (a warm start's first), once per model.")
@click.option("--verbose", "-v", is_flag=True, default=False,
              help="With --commands: every row's record, not each model's once.")
@models_dir_option
def models_command(out_format, every, commands, verbose, models_dir):
    """List the shipped models by language: one line per language with the model `inflect
    predict --lang L` uses, its number of members, dev accuracy on L's dev set, setting, size
    and method (from scratch, warm start, hallucinated pairs, ensemble). --commands adds how each model was trained; --all lists every model of each
    language."""

    from inflect.inference.registry import REGISTRY_FILE, RegistryError, list_models
    from inflect.inference.registry import models_dir as resolve_models_dir

    try:
        entries = list_models(models_dir, every=every)
    except RegistryError as exc:
        raise click.ClickException(str(exc)) from None
    lacking = {entry.name: entry.missing for entry in entries if entry.missing}
    for name, missing in lacking.items():
        click.echo(f"warning: the model {name!r} lacks {', '.join(map(str, missing))}", err=True)
    if not entries:
        registry = resolve_models_dir(models_dir) / REGISTRY_FILE
        click.echo(
            f"no shipped models: {registry} lists none. Train one with `inflect train` and use "
            "it with `inflect predict --model PATH`."
        )
        return
    if output_format(out_format) == "tsv":
        from inflect.render.tsv import models_tsv

        click.echo(models_tsv(entries), nl=False)
        return
    from inflect.render.common import Fitted, terminal_console
    from inflect.render.tables import models_commands, models_table

    console = terminal_console()
    # the method column (wrapped) where the terminal has room for it; then the names folded;
    # the numbers always whole
    console.print(Fitted(models_table(entries), models_table(entries, method=False),
                         models_table(entries, method=False, fold_names=True)))
    if not (commands or verbose):
        console.print("how each model was made and trained: inflect models --commands",
                      style="dim")
        return
    for line in models_commands(entries, every_row=verbose):  # a command: one line, whole
        console.print(line, soft_wrap=True)
