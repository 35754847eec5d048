"""Table 1's own model where the paper measured (chapter 03's first section): runs, readers, views."""
