"""Data for tools: JSON (memreport/1 and friends), CSV, the saved report, pandas DataFrames."""
