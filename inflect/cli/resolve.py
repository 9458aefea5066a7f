"""What the options given resolve to, before a command calls the library: the torch threads,
the output files (checked before any work), the models (given, or the shipped one of
``--lang``), the lexicons, and the pause after which a slow input's lines are answered. Every
failure is a click error (a usage error or a one-line message), not a traceback."""

from __future__ import annotations

import os

import click

from inflect import defaults


def set_threads(threads: int | None) -> None:
    """Apply --threads (or the environment's / the idle cores' count); errors are usage errors."""
    from inflect.nn.threads import set_threads as apply

    try:
        apply(threads)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def check_outputs(*paths: str) -> None:
    """Before any work: each output file can be written (else a clear error naming it)."""
    from inflect.io.outputs import OutputError, check_output_file

    try:
        for path in paths:
            check_output_file(path)
    except OutputError as exc:
        raise click.ClickException(str(exc)) from None


def input_idle(input_path) -> float | None:
    """The pause after which the lines read so far are answered
    (:data:`inflect.defaults.STREAM_IDLE_SECONDS`) where the input can be slow: standard input
    (a terminal, a pipe) or a file that is not a regular one (a FIFO); None for a regular file,
    which is read in whole chunks."""
    import stat
    import sys

    if input_path is None:
        return None
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode if input_path == "-" else os.stat(
            input_path).st_mode
    except (OSError, ValueError, AttributeError):
        return defaults.STREAM_IDLE_SECONDS
    return None if stat.S_ISREG(mode) else defaults.STREAM_IDLE_SECONDS


def check_setting(setting: str | None, models: tuple[str, ...], pred_files: tuple = ()) -> None:
    """``--setting`` chooses a shipped model: with ``--model`` (or ``--pred``) it would be
    silently ignored, so it is refused."""
    if setting is not None and (models or pred_files):
        given = "--model" if models else "--pred"
        raise click.UsageError(
            f"--setting chooses among the shipped models; with {given} it has no effect "
            "(drop one of them)")


def models_or_shipped(models: tuple[str, ...], languages: tuple[str, ...],
                      setting: str | None = None) -> tuple[str, ...]:
    """``models`` as given, or else the shipped model of the ``--lang`` given (several: the
    model they share; languages whose defaults differ are refused, naming each one's)."""
    check_setting(setting, models)
    if models or not languages:
        return models
    from inflect.inference.registry import NoDefaultModelError, RegistryError, default_model

    try:
        chosen = {lang: default_model(lang, setting=setting) for lang in languages}
    except (NoDefaultModelError, RegistryError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    names = {m.name for m in chosen.values()}
    if len(names) > 1:
        each = ", ".join(f"{lang}: {m.name}" for lang, m in chosen.items())
        raise click.ClickException(f"the languages have different shipped models ({each}); "
                                   "give --model, or languages of one model")
    return tuple(str(m) for m in next(iter(chosen.values())).members)


#: The names evaluate's and report's ``--lexicon`` take besides files.
NAMED_LEXICONS = ("shipped", "unimorph", "dictionaries")


def given_lexicons(lexicon_files: tuple[str, ...], languages: tuple[str, ...]):
    """The lexicons of evaluate's / report's ``--lexicon FILE|shipped|unimorph|dictionaries``
    (None when not given: the model alone)."""
    if not lexicon_files:
        return None
    files = tuple(f for f in lexicon_files if f not in NAMED_LEXICONS)
    for path in files:
        if not os.path.isfile(path):
            raise click.BadParameter(f"{path}: no such file (or one of {', '.join(NAMED_LEXICONS)})",
                                     param_hint="--lexicon")
    return chosen_lexicons(files, False, languages[0] if len(languages) == 1 else None,
                           shipped="shipped" in lexicon_files,
                           unimorph="unimorph" in lexicon_files,
                           dictionaries="dictionaries" in lexicon_files)


def lexicon_report(lexicons) -> str:
    """One line: how many inputs the lexicons answered first, from which (an
    :class:`inflect.lexicon.Lexicons` after its lookups), and how many the model alone."""
    answered = sum(lexicons.answered.values())
    each = ", ".join(f"{name} {count:,}" for name, count in lexicons.answered.most_common())
    return (f"lexicons: {answered:,} of {lexicons.asked:,} inputs answered with an attested form"
            f" first{f' ({each})' if each else ''}; {lexicons.asked - answered:,} by the model "
            "alone (--no-lexicon: the model for every input)")


def _lexicon_notes(user) -> None:
    """On stderr, once each: the notes of the user's lexicon files (a file read as --lang's
    language), and each UniMorph feature a file uses that its language's training data never
    do (``INST`` where the data write ``INS``: its lines are never matched), with the feature
    the data use that is closest (:mod:`inflect.corpora.bundles`)."""
    from inflect.corpora.bundles import language_bundles

    for note in getattr(user, "notes", ()):
        click.echo(f"warning: {note}", err=True)
    for language, used in getattr(user, "features", {}).items():
        known = language_bundles(language)
        if known is None:
            continue
        for feature, where in used.items():
            if feature in known.features:
                continue
            hint = known.feature_hint(feature)
            click.echo(f"warning: {where}: UniMorph feature {feature!r} is not used by "
                       f"{language}'s training data, so the lines with it never match an input"
                       + (f" (did you mean {hint!r}?)" if hint else ""), err=True)


def check_no_lexicon(lexicon_files: tuple[str, ...]) -> None:
    """With --no-lexicon: refuse --lexicon given on the command line too (a file of
    INFLECT_LEXICON alone is overridden by --no-lexicon).

    Raises:
        click.UsageError: both options given.
    """
    ctx = click.get_current_context()
    given = ctx.get_parameter_source("lexicon_files") == click.core.ParameterSource.COMMANDLINE
    if lexicon_files and given:
        raise click.UsageError("--no-lexicon asks the model alone; drop it or --lexicon")


def chosen_siblings(siblings: str, no_lexicon: bool) -> bool | str | None:
    """The predictor's ``siblings`` for ``--siblings`` (see
    :func:`inflect.inference.siblings.siblings_choice`); ``on`` with ``--no-lexicon`` is a usage
    error (nothing to re-rank by), ``auto`` with it the model's order."""
    from inflect.inference.siblings import siblings_choice

    if siblings == "on" and no_lexicon:
        raise click.UsageError("--siblings on re-ranks by the lemma's forms in the shipped "
                               "lexicon; --no-lexicon turns it off (drop one of them)")
    return siblings_choice(siblings, no_lexicon)


def chosen_lexicons(lexicon_files: tuple[str, ...], no_lexicon: bool, lang: str | None,
                    shipped: bool = True, unimorph: bool = True, dictionaries: bool = True):
    """The lexicons of --lexicon / --no-lexicon (the user's files, then the field dictionaries,
    UniMorph and the shipped store, each where asked); a lexicon of another language than
    --lang is named on stderr (it is not consulted)."""
    from inflect.lexicon import load_lexicons

    if no_lexicon:
        check_no_lexicon(lexicon_files)
        return None
    found = load_lexicons(lexicon_files, shipped=shipped, language=lang, unimorph=unimorph,
                          dictionaries=dictionaries)
    if lexicon_files:
        _lexicon_notes(found.layers[0])
    if lang and lexicon_files:
        from inflect.text.languages import resolve

        wanted = resolve(lang).name
        user = found.layers[0]
        if wanted not in user.languages():
            click.echo(f"warning: the lexicon {user.name} holds {', '.join(sorted(user.languages()))}"
                       f" forms, not {wanted}: it is not consulted", err=True)
    return found
