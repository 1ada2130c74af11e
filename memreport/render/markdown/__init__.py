"""GitHub-flavoured Markdown of reports, diffs and compile histories."""
