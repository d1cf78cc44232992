"""Tank yard (chapter 12): one tank per party on three spaces, a plug-in over the shared core.

The plug-in surface (``tankref.core.ruleset.Ruleset``) lives in ``plugin``; it is imported on
first use so that importing the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

NAME = "yrd"

if TYPE_CHECKING:
    from tankref.rulesets.yrd.plugin import TankYard


def ruleset() -> TankYard:
    from tankref.rulesets.yrd.plugin import TankYard

    return TankYard()
