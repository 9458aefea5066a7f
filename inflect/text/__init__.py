"""Text in and out of the shared task's formats: records (:mod:`.records`), file layouts (2018,
covered, 2023: :mod:`.layouts`), lines to examples (:mod:`.parsing`), reading files
(:mod:`.reading`), UniMorph tag bundles, language specs, and the codecs that turn strings into
model symbols.

Imports the standard library only (and :mod:`inflect.defaults`).
"""
