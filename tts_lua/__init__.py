"""The Tabletop Simulator Lua modules, shipped inside the package (``tankref.tts_lua``) so
``tankref tts-save`` can bundle them after a plain ``pip install .``."""
