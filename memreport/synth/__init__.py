"""Synthetic inputs (archives, profiles, text reports) for tests, samples and benchmarks."""
