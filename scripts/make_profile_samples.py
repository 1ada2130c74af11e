#!/usr/bin/env python3
"""Write sample_reports/mk1_profile.json, mk1_profile.cbor, tensor_map.json and mk2_profile.json (deterministic).

    python scripts/make_profile_samples.py [OUTPUT_DIR]

The profile is tests.synth.profile.mk1_poplar_match_profile(): 1,216 Mk1
tiles whose By Tile block matches a real Poplar text report. The JSON is the
bare profile, the CBOR the same profile wrapped in ``graphProfile`` after the
self-describe tag; the tensor map places a few tensors on those tiles.
mk2_profile.json is tests.synth.profile.mk2_stepped_profile(): one Mk2 IPU
with three tiles over their memory and 400 program steps of liveness with
one peak (the README's fit plan by category and liveness curve).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.synth.profile import (
    encode_cbor,
    encode_json,
    mk1_poplar_match_profile,
    mk1_tensor_map,
    mk2_stepped_profile,
    wrap,
)


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "sample_reports"
    out.mkdir(parents=True, exist_ok=True)
    profile = mk1_poplar_match_profile()
    files = {
        "mk1_profile.json": encode_json(profile),
        "mk1_profile.cbor": encode_cbor(wrap(profile), self_describe=True),
        "tensor_map.json": encode_json(mk1_tensor_map()),
        "mk2_profile.json": encode_json(mk2_stepped_profile()),
    }
    for name, data in files.items():
        (out / name).write_bytes(data)
        print(f"wrote {out / name} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
