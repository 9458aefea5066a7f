"""The ``inflect`` command line (click): parse, call, render.
"""

from inflect.cli.commands import main

__all__ = ["main"]
