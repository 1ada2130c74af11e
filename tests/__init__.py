"""memreport's tests, laid out as the package is (tests/render/text/ for memreport/render/text/...)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository's root
SAMPLES = ROOT / "sample_reports"              # the bundled samples (sample_reports/README.md)
