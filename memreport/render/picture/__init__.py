"""Pictures: a PNG of each report (matplotlib, imported only here)."""
