"""Text: the log scan and its needles, Poplar's printed summaries and out-of-memory messages,
compile logs, a log's programs (one segmentation for both) and Jupyter notebooks (FORMATS.md §1, §8).

This family imports the registry, the model and the floor, never another reader family.
"""
