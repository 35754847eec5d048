"""Figures 1 and 2 and the Figure 2 constant: the toy model's plateau laws (chapters 01, 02).

runs (grids → run configs), read (tables from results), show (the chapter's figures, glue, claims)."""
