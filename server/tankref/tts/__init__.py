"""Tabletop Simulator support: bundling the Lua modules and writing a save file."""
