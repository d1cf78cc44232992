"""Card data shipped with tankref: one folder per ruleset."""
