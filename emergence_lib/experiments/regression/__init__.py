"""Figures 3, 11 and 12 and Table 1's own settings: single-location regression in a Transformer (chapters 03, A3).

runs (grids → run configs), read (tables from results), show (the chapter's figures, glue, claims)."""
