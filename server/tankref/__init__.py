"""tankref: a referee for tank wargames played in Tabletop Simulator."""

__version__ = "0.1.0"
