"""TinyTableTopTanks: the first ruleset, a plug-in over the shared core.

The plug-in surface (``tankref.core.ruleset.Ruleset``) lives in ``plugin``; it is imported on
first use so that importing the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

NAME = "ttt"

if TYPE_CHECKING:
    from tankref.rulesets.ttt.plugin import TinyTableTopTanks


def ruleset() -> TinyTableTopTanks:
    from tankref.rulesets.ttt.plugin import TinyTableTopTanks

    return TinyTableTopTanks()
