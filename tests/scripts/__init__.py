"""Tests of the scripts under scripts/ (benchmarks, fuzzing, samples)."""
from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

SCRIPTS = os.path.join(os.path.dirname(__file__), "..", "..", "scripts")


def script_module(name: str) -> ModuleType:
    """scripts/NAME.py, imported as a module (the scripts are not a package)."""
    sys.path.insert(0, SCRIPTS)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)
