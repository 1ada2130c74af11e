"""Readers: bytes of every format Poplar writes -> the per-tile model (docs/ARCHITECTURE.md).

The registry (:mod:`.registry`) sniffs content and dispatches; each reader
module registers itself there. Readers import the model and the floor
(errors, units) and nothing else of memreport.
"""
from .registry import (
                       PREFIX_BYTES,
                       Reader,
                       ReadOptions,
                       identify,
                       read_path,
                       read_prefix,
                       readers,
                       reading,
                       register,
                       resolve,
)

__all__ = ["PREFIX_BYTES", "ReadOptions", "Reader", "identify", "read_path", "read_prefix",
           "readers", "reading", "register", "resolve"]
