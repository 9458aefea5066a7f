"""Text in and out of the shared task's formats: records (:mod:`.records`), file layouts (2018,
covered, 2023: :mod:`.layouts`), lines to examples (:mod:`.parsing`), reading files
(:mod:`.reading`), UniMorph tag bundles (UniMorph 4 layered features: :mod:`.layers`), language
specs (the shipped ones, the user's folder, those of loaded checkpoints: :mod:`.languages`), and
the codecs that turn strings into model symbols.

Imports the standard library only (and :mod:`inflect.defaults`; platformdirs for where the user's
folder of languages is).
"""
