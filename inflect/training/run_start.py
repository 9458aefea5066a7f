"""The config a training run starts with: a new run's (a preset with options on top), a warm
start's (the checkpoint's network, the options given on top) or a resumed run's (its own,
unless options are given, which must then agree with it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inflect.training.config import Config


def start_config(
    preset: str | None,
    options: dict[str, Any],
    given: dict[str, Any],
    *,
    init_from: str | Path | None = None,
    resume: bool = False,
) -> Config | None:
    """The config to pass to :func:`inflect.training.trainer.train`.

    Args:
        preset: a name of :data:`inflect.training.config.PRESETS`, or None (the paper's defaults).
        options: config fields set by the caller (None values: the preset's), e.g. the
            options of ``inflect train``.
        given: those of ``options`` given explicitly (on the command line): a warm start puts
            only these on the checkpoint's config, and a resumed run without ``given`` or
            ``preset`` keeps its saved config.
        init_from: a model checkpoint to start from (a warm start), or None.
        resume: the run continues one saved in its folder (not with ``init_from``).

    Returns:
        The preset's config with ``options``; with ``init_from``, the checkpoint's config with
        ``preset`` and ``given`` on top (:func:`inflect.training.trainer.initial_config`); with
        ``resume`` and neither ``given`` nor ``preset``, None (the saved run's config).

    Raises:
        ValueError: an unknown preset; a warm start whose ``preset`` or ``given`` changes the
            checkpoint's network.
        inflect.nn.checkpoint.CheckpointError: ``init_from`` is not a model checkpoint.
    """
    config = Config.from_preset(preset, **options)
    if init_from:  # the checkpoint's config with the options given on the command line
        from inflect.training.warm_start import initial_config

        config = initial_config(init_from, preset, **given)
    if resume:  # the saved run's settings, unless some are given (then they must agree)
        config = config if given or preset else None
    return config
