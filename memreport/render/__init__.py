"""Renderers: model + analysis in, text / JSON / CSV / PNG out. They never parse input."""
