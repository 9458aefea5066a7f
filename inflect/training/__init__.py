"""Training: the per-language queue (:mod:`inflect.training.queue`)."""
