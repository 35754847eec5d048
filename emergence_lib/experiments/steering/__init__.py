"""The book's own experiment: data-diversity schedules that steer emergence (chapter B1).

runs (grids → run configs), read (tables from results), show (the chapter's figures, glue, claims)."""
