"""Options that several ``inflect`` commands share, declared once: the search's (``--beam``,
``--max-forms``), ``--device``, ``--threads``, ``--format`` of a table, ``--data-dir``,
``--setting`` (the shipped model), ``--models-dir``, ``--lexicon``, ``--strict``; and the
parameter types and callbacks the commands' own options use."""

from __future__ import annotations

import os

import click

from inflect import defaults

#: The beam's upper bound (defaults.MAX_BEAM_SIZE) keeps a typo (``--beam 50000``) from
#: exhausting memory.


def beam_option(when: str = ""):
    """``--beam`` of the commands that search (predict, paradigm, translate, evaluate, report,
    explain); ``when`` ends its help (e.g. ``" (with --model)"``)."""
    return click.option("--beam", type=click.IntRange(min=1, max=defaults.MAX_BEAM_SIZE),
                        default=defaults.BEAM_SIZE, show_default=True,
                        help=f"Beam size k, 1 to {defaults.MAX_BEAM_SIZE}{when}.")


def max_forms_option(what: str):
    """``--max-forms``: list at most this many ``what`` (forms, translations) per input."""
    return click.option("--max-forms", type=click.IntRange(1, defaults.MAX_FORMS_LIMIT),
                        default=defaults.MAX_FORMS, show_default=True,
                        help=f"List at most this many {what} per input, 1 to "
                             f"{defaults.MAX_FORMS_LIMIT} (then: 'more than N').")


def format_option(columns: str):
    """``--format table|tsv`` of a command that prints a table; ``columns`` names the TSV's."""
    return click.option("--format", "out_format", type=click.Choice(["table", "tsv"]),
                        default=None,
                        help=f"table (default on a terminal) or tsv (default in a pipe; a header "
                             f"line, then {columns}).")


def comma_list(ctx, param, value):
    """A repeatable option that also takes a comma-separated list (``--lang a,b`` as
    ``--lang a --lang b``, the way `inflect train --lang` reads it), blanks dropped."""
    return tuple(n.strip() for v in value or () for n in v.split(",") if n.strip())


#: The options whose files may hold a language no spec knows: training files and
#: prediction files. They and ``--model`` are declared eager (processed before ``--lang``).
NEW_LANGUAGE_FILES = ("train_files", "pred_files")


def _register_model_languages(ctx) -> None:
    """Make the languages of the command's ``--model`` checkpoints known to
    :func:`inflect.text.languages.resolve` (their metadata alone, as loading them does), so that
    ``--lang`` may name a user's language that a model carries; a ``--model`` that cannot be
    read is left to the command to report."""
    from inflect.inference.user_models import checkpoint_languages
    from inflect.nn.checkpoint import CheckpointError

    paths = list(ctx.params.get("models") or ())
    for given in ctx.params.get("user_models") or ():  # serve's NAME=PATH
        _, sep, path = given.partition("=")
        paths.append(path if sep and not os.path.exists(given) else given)
    for path in paths:
        try:
            checkpoint_languages([path])
        except (OSError, ValueError, CheckpointError):
            continue


def _language_names(ctx, param, names) -> tuple[str, ...]:
    """``names`` resolved to shared-task names (:func:`inflect.text.languages.resolve`, which
    knows the user's languages and those of the command's ``--model``): a name that is no
    language's, or several languages', is a usage error (exit status 2, as every other wrong
    option value), whichever command it is given to, unless the command reads files that may
    define a new language (:data:`NEW_LANGUAGE_FILES`: ``--train``, ``--pred``): there a name
    no spec knows is kept as given (an ambiguous name stays an error).

    Raises:
        click.BadParameter: naming the value, the closest languages (or those it names).
    """
    from inflect.text.languages import AmbiguousLanguageError, UnknownLanguageError, resolve

    _register_model_languages(ctx)
    new_ok = any(ctx.params.get(name) for name in NEW_LANGUAGE_FILES)
    found = []
    for name in names:
        try:
            found.append(resolve(name).name)
        except AmbiguousLanguageError as exc:
            raise click.BadParameter(str(exc), ctx, param) from None
        except UnknownLanguageError as exc:
            if not new_ok:
                raise click.BadParameter(str(exc), ctx, param) from None
            found.append(name)
    return tuple(found)


def language_list(ctx, param, value):
    """``--lang`` of a command that takes several languages (repeatable, or ``a,b``): each a
    known language's name, resolved to its shared-task name (``de`` -> ``german``)."""
    return _language_names(ctx, param, comma_list(ctx, param, value))


def languages_or_all(ctx, param, value):
    """``--lang`` of `inflect train` and `inflect queue`: ``all``, or names separated by
    commas, each a known language's (checked here; the value is passed on as given)."""
    if value is not None and value.strip() != "all":
        _language_names(ctx, param, comma_list(ctx, param, (value,)))
    return value


def lexicon_files(ctx, param, value):
    """The lexicon files of ``--lexicon`` or ``INFLECT_LEXICON`` (paths separated by ``:``):
    an empty entry of the variable (``eng:``, ``a.tsv::b.tsv``) is skipped; a file that is not
    there is an error naming where it was given (the option, or the variable)."""
    from click.core import ParameterSource

    from_env = ctx.get_parameter_source(param.name) == ParameterSource.ENVIRONMENT
    files = tuple(v for v in value if v.strip()) if from_env else tuple(value)
    for path in files:
        if not os.path.isfile(path):
            what = "no such file" if not os.path.exists(path) else "not a file"
            if from_env:
                raise click.UsageError(
                    f"INFLECT_LEXICON: {path!r}: {what} (the variable lists lexicon files "
                    "separated by ':'; unset it or correct it)", ctx)
            raise click.BadParameter(f"{path!r}: {what}", ctx, param)
    return files


def one_language(ctx, param, value):
    """``--lang`` (or LANGUAGE) of a command that answers in one language, resolved to its
    shared-task name; ``a,b`` (several, as `inflect train` and `inflect evaluate` take them) and
    a name that is no language's are usage errors that say so."""
    if value and "," in value:
        names = [n.strip() for n in value.split(",") if n.strip()]
        raise click.BadParameter(
            f"{value!r}: {ctx.info_name} answers in one language, not {len(names)}; run it once "
            f"per language (--lang {names[0] if names else 'L'})", ctx, param)
    return None if value is None else _language_names(ctx, param, (value,))[0]


def a_folder(ctx, param, value):
    """An option naming a folder to write (``--out`` of train and queue): ``-`` (standard
    output, as the options naming a file take it) cannot hold one."""
    if value == "-":
        raise click.BadParameter(
            "'-' is standard output, which cannot hold a folder; give the folder's name (e.g. "
            "runs/de)", ctx, param)
    return value


class FiniteFloat(click.FloatRange):
    """A float option that must be finite (``nan``, ``inf`` refused) and in its range."""

    name = "finite float"

    def convert(self, value, param, ctx):
        import math

        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return super().convert(number, param, ctx)


device_option = click.option("--device", default="auto", show_default=True,
                             help="auto (CUDA when available, else CPU), cpu, cuda, cuda:1, ...")

threads_option = click.option(
    "--threads", type=click.IntRange(min=1), default=None,
    help="CPU threads for torch (default: $INFLECT_THREADS, $OMP_NUM_THREADS, else the idle "
         "cores: cores minus the load average, at least 1).")

#: ``--data-dir`` of the commands that read data (data, evaluate, report); `inflect train` and
#: `inflect queue` word theirs in :mod:`inflect.cli.train`.
data_dir_option = click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Data folder (default: $INFLECT_DATA_DIR, else the user cache folder).",
)

#: ``--setting`` of the commands that can use a shipped model (its choice among them).
setting_option = click.option(
    "--setting", type=click.Choice(list(defaults.SETTINGS)), default=None,
    help="Without --model: the shipped model of this training setting (default: the "
         "language's best on its dev set; `inflect models` lists them).")

models_dir_option = click.option(
    "--models-dir",
    type=click.Path(file_okay=False),
    envvar="INFLECT_MODELS_DIR",
    default=None,
    help="Folder with a registry.toml replacing the shipped models (env: INFLECT_MODELS_DIR).",
)

#: ``--lexicon FILE`` of `inflect predict` (evaluate and report take ``FILE|shipped``).
lexicon_option = click.option(
    "--lexicon", "lexicon_files", multiple=True, envvar="INFLECT_LEXICON",
    type=click.Path(dir_okay=False), callback=lexicon_files,
    help="Lexicon of attested forms, lemma<TAB>form<TAB>tags (2018) or lemma<TAB>tags<TAB>form "
         "(2023); repeatable (env: INFLECT_LEXICON, paths separated by ':'). Its language is the "
         "file name's (german.tsv, german-train-high), else --lang's. Its forms come first, "
         "then those of the field dictionaries, UniMorph and the shipped lexicon.")

strict_option = click.option(
    "--strict", is_flag=True, default=False,
    help="Stop at the first input that cannot be answered (a line that cannot be read, an "
         "unknown UniMorph feature, ...). Default: each such line gets an error record in the "
         "output, the run goes on and the exit status is 1 at the end.")

#: ``--siblings`` of predict, paradigm and explain (the choices of
#: :data:`inflect.inference.siblings.SIBLINGS_CHOICES`, written out as ``--tag-format``'s are;
#: tests/test_siblings.py keeps them equal).
siblings_option = click.option(
    "--siblings", type=click.Choice(["auto", "on", "off"]), default="auto", show_default=True,
    help="Re-rank the model's forms by the lemma's other attested forms: its cells in the shipped "
         "lexicon of the shared-task data, weighed by how the other lemmas of the same classes "
         "inflect (inflect.inference.siblings; Norwegian Nynorsk dev 81.3 -> 88.8). auto: for "
         "the shipped models whose dev accuracy gained from it (inflect/models/siblings.toml); "
         "on: always; off: the model's order. Only the order changes: the probabilities and the "
         "certificate stay the model's.")

#: ``--tag-format`` of every command that reads a tag bundle from the user (predict, explain,
#: evaluate, report ambiguity, data check). Its choices are
#: :data:`inflect.text.dialects.TAG_FORMATS`, written out so that no command's start pays for
#: importing the readers (tests/test_serve_units.py keeps them equal).
tag_format_option = click.option(
    "--tag-format", type=click.Choice(["auto", "unimorph", "unimorph4", "ud"]), default="auto",
    show_default=True,
    help="The dialect of the tags: unimorph, the 2018 data's bundles (N;DAT;PL); unimorph4, "
         "UniMorph 4's layered features (N;DAT(PL), V;IND;PRS;NOM(3,SG)); ud, Universal "
         "Dependencies' UPOS|Name=Value|... (NOUN|Case=Dat|Number=Plur). auto: each bundle's, "
         "a '=' or '|' meaning UD and a layer NAME(...) UniMorph 4. Foreign tags are read as the "
         "language's 2018 bundle; the output keeps the tags as written beside the bundle asked.")
