"""The ``inflect`` command line (click): parse, call, render.

One module per command or group of commands, each added here to the root group
(:mod:`inflect.cli.group`): :mod:`~inflect.cli.train` (train, queue), :mod:`~inflect.cli.data`,
:mod:`~inflect.cli.evaluate`, :mod:`~inflect.cli.lexicon`, :mod:`~inflect.cli.report`, :mod:`~inflect.cli.predict`,
:mod:`~inflect.cli.paradigm`, :mod:`~inflect.cli.models`, :mod:`~inflect.cli.explain`,
:mod:`~inflect.cli.translate`, :mod:`~inflect.cli.serve`, :mod:`~inflect.cli.lang`,
:mod:`~inflect.cli.runs`; the options several of them share are in
:mod:`inflect.cli.options`, what the options resolve to in :mod:`inflect.cli.resolve`, and
where the results go in :mod:`inflect.cli.output`. A command imports the library it calls
inside its body, so that a command starts without importing what it does not use.
"""

from inflect.cli import (
    data,
    evaluate,
    explain,
    lang,
    lexicon,
    models,
    paradigm,
    predict,
    report,
    runs,
    serve,
    train,
    translate,
)
from inflect.cli.group import main

for _command in (
    train.train_command,
    train.queue_command,
    data.data,
    lang.lang,
    lexicon.lexicon,
    evaluate.evaluate_command,
    report.report,
    predict.predict_command,
    paradigm.paradigm_command,
    models.models_command,
    explain.explain_command,
    translate.translate_command,
    serve.serve_command,
    runs.runs,
):
    main.add_command(_command)
del _command

__all__ = ["main"]
