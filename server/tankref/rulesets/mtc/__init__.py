"""Minimal Tank Combat (Timothy Swenson): a hex-map ruleset, a plug-in over the shared core.

Its plug-in (``plugin.ruleset``, the ``tankref.rulesets`` entry point) is imported only when the
referee first asks for this ruleset, so importing the package stays cheap.
"""

NAME = "mtc"
