"""``python -m memreport``: the same as the ``memreport`` command."""
from .cli import main

main(prog_name="memreport")
