"""Toy tanks: a fifth ruleset that lives outside tankref, in this folder (RULES.md), and is
made known with one line: ``registered("toy", toyrules.ruleset)`` (or ``register``)."""

from toyrules.game import NAME, ruleset

__all__ = ["NAME", "ruleset"]
