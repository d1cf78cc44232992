"""Tank yard (chapter 12): one tank per party on three spaces, a plug-in over the shared core.

Its plug-in (``plugin.ruleset``, the ``tankref.rulesets`` entry point) is imported only when the
referee first asks for this ruleset, so importing the package stays cheap.
"""

NAME = "yrd"
