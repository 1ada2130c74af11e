"""The reader registry (memreport/readers/__init__.py): every built-in reader, in sniffing order."""
from __future__ import annotations

import subprocess
import sys
import textwrap

from memreport.readers import readers


def test_every_builtin_reader_registers_in_sniffing_order():
    assert [r.name for r in readers()] == ["ar", "elf", "saved-csv", "saved", "json", "cbor", "pva", "poplar-text"]


def test_a_missing_reader_module_is_an_error_not_a_missing_format():
    """A reader that fails to import must not silently leave its format unrecognised."""
    code = textwrap.dedent("""
        import sys
        sys.modules["memreport.readers.poplar_text"] = None  # its import now raises ModuleNotFoundError
        from memreport.readers import readers
        try:
            readers()
        except ModuleNotFoundError as exc:
            print("raised", exc.name)
        else:
            print("swallowed")
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "raised memreport.readers.poplar_text"
