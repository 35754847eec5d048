"""The book's own experiment: predicting emergence before and early in training (chapter B2).

runs (grids → run configs), read (tables from results), show (the chapter's figures, glue, claims)."""
