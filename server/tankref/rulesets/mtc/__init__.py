"""Minimal Tank Combat (Timothy Swenson): a hex-map ruleset, a plug-in over the shared core.

The plug-in surface (``tankref.core.ruleset.Ruleset``) lives in ``plugin``; it is imported on
first use so that importing the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

NAME = "mtc"

if TYPE_CHECKING:
    from tankref.rulesets.mtc.plugin import MinimalTankCombat


def ruleset() -> MinimalTankCombat:
    from tankref.rulesets.mtc.plugin import MinimalTankCombat

    return MinimalTankCombat()
