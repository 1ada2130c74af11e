"""docs/memreport_tour.ipynb runs from top to bottom in a real kernel and shows what it promises."""
from __future__ import annotations

import importlib.util
import os

import pytest

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")
TOUR = os.path.join(DOCS, "memreport_tour.ipynb")

missing = [name for name in ("nbclient", "nbformat", "ipykernel") if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(bool(missing), reason=f"the notebook test needs {', '.join(missing)} "
                                                      "(pip install -e '.[test]')")


def outputs(cell) -> dict[str, str]:
    """Mime type -> content over a cell's displayed outputs, and ``stream`` for printed text."""
    found: dict[str, str] = {}
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            found["stream"] = found.get("stream", "") + out["text"]
        for mime, value in out.get("data", {}).items():
            found[mime] = value if isinstance(value, str) else "".join(value)
    return found


@pytest.fixture(scope="module")
def executed():
    import nbformat
    from nbclient import NotebookClient
    notebook = nbformat.read(TOUR, as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells), "commit the tour without outputs"
    # Run where Jupyter would: beside the notebook, so its ../sample_reports paths resolve.
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": DOCS}}).execute()
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def test_the_tour_runs_and_shows_reports_and_pictures(executed):
    shown = [outputs(cell) for cell in executed]
    first = shown[0]
    assert "Top 5 tiles" in first["text/html"] and "image/png" in first  # the report's rich display
    assert "tiles_per_ipu=1472" in shown[1]["text/plain"]
    assert shown[2]["text/plain"] == "3"
    assert "tile  1402 on IPU 0" in shown[3]["stream"] and "OUT OF MEMORY" in shown[3]["stream"]
    pictures = [s for s in shown if "image/png" in s and "text/html" not in s]
    assert len(pictures) == 2  # report.plot() and step.plot(), each shown once
    assert any("including_gaps" in s.get("text/html", "") for s in shown)  # a DataFrame


def test_the_tour_drills_below_the_tile(executed):
    shown = [outputs(cell) for cell in executed]
    symbols, categories, diff = shown[-3], shown[-2], shown[-1]
    assert symbols["stream"].splitlines()[0] == "  393,288 B   49.8%  .bss   conv2d_7/weights"
    assert symbols["stream"].splitlines()[-1] == "unattributed: 618 B {'.text': 218, '.data': 16, '.bss': 384}"
    assert categories["text/plain"] == ("({'stack': 3168,\n  'variable': 1108,\n  'controlCode': 700,\n"
                                        "  'hostExchangeCode': 582},\n 'always-live',\n '81%')")
    assert diff["stream"] == ("tile 1024: +150,000 B\n"
                              "  section  .bss                 490740 -> 640740 (grew)\n"
                              "  symbol   attention_4/scores   None -> 150000 (new)\n")
