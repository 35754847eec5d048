"""A 2026 follow-up's claims tested on these tasks (chapter B3).

runs (grids → run configs), read (tables from results), show (the chapter's figures, glue, claims)."""
