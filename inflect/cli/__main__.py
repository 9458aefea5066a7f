"""``python -m inflect.cli``: the ``inflect`` command line, as ``python -m inflect``."""

from inflect.cli import main

if __name__ == "__main__":  # pragma: no cover
    main(prog_name="inflect")
