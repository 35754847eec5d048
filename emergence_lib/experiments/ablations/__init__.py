"""Figures 13-15: the Transformer ablations (chapter A4).

runs (grids → run configs), read (tables from results), show (the chapter's figures, glue, claims)."""
