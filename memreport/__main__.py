"""``python -m memreport``: the same as the ``memreport`` command."""
from .cli import run

run()
