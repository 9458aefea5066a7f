"""``python -m inflect``: the ``inflect`` command line (e.g. under ``torchrun``)."""

from inflect.cli import main

if __name__ == "__main__":
    main(prog_name="inflect")
