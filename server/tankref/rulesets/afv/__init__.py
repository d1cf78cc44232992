"""AFV: a pared-down Striker for tiny tanks, as a plug-in over the shared core.

The plug-in surface (``tankref.core.ruleset.Ruleset``) lives in ``plugin``; it is imported on
first use so that importing the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

NAME = "afv"

if TYPE_CHECKING:
    from tankref.rulesets.afv.plugin import Afv


def ruleset() -> Afv:
    from tankref.rulesets.afv.plugin import Afv

    return Afv()
