"""Structured documents: JSON/CBOR graph profiles, tensor maps, memreport's own saved
reports (JSON and CSV) and profile.pop through libpva (FORMATS.md §2, §4).

This family imports the registry, the model and the floor, never another reader family.
"""
