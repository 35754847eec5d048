"""Figures 4, 5, 16 and 17: in-context associative recall (chapters 04, A5).

runs (grids → run configs), read (tables from results), show (the chapter's figures, glue, claims)."""
