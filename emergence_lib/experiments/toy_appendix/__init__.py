"""Figures 6-10: the toy model's theory and checks (chapters A1, A2).

runs (grids → run configs), show (readers and the chapter's figures, glue, claims)."""
