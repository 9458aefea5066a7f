"""Which shipped model answers a language, read here from ``registry.toml``'s tables (parsed
with tomllib), independently of :mod:`inflect.inference.registry`: per setting, the model of the
best pooled figure where ``[heldout.LANGUAGE]`` lists every model of that setting serving the
language, else of the best dev figure; then, of those, the best on dev (ties: the first in the
``[language.LANGUAGE]`` table)."""

from __future__ import annotations


def chosen(registry: dict, language: str, setting: str | None = None) -> str:
    """The name of the model ``language`` is answered with (of ``setting``, where given)."""
    dev = registry["language"][language]
    pooled = registry.get("heldout", {}).get(language, {}).get("pooled", {})
    settings = {name: registry["model"][name]["setting"] for name in dev}
    order = list(dev)
    winners = []
    for one in dict.fromkeys(settings.values()):
        group = [name for name in order if settings[name] == one]
        by = pooled if all(name in pooled for name in group) else dev
        best = max(by[name] for name in group)
        winners.append(next(name for name in group if by[name] == best))
    if setting is not None:
        return next(name for name in winners if settings[name] == setting)
    winners.sort(key=order.index)
    best = max(dev[name] for name in winners)
    return next(name for name in winners if dev[name] == best)
