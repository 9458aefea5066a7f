"""Text in and out of the shared task's formats: records and file layouts (2018, covered, 2023),
UniMorph tag bundles, language specs, and the codecs that turn strings into model symbols.

Imports the standard library only (and :mod:`inflect.defaults`).
"""
