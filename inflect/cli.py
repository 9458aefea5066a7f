"""The ``inflect`` command line: parse, call the library, render. No logic of its own."""

from __future__ import annotations

import click

from inflect import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="inflect")
def main() -> None:
    """Morphological inflection with sparse sequence-to-sequence models.

    Given a lemma, a UniMorph tag bundle and a language, produce the inflected form, with every
    form the model considers possible, its probability, and a certificate when beam search was
    provably exact.
    """


if __name__ == "__main__":  # pragma: no cover
    main()
