"""Text for a terminal: reports, diffs and compile histories, every line fitted to the width."""
