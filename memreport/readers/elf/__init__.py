"""ELF and ar: archives of tile ELFs (saveArchive), thin archives, single ELF files, their
sections and, below the tile, their symbols (FORMATS.md §3).

This family imports the registry, the model and the floor, never another reader family.
"""
