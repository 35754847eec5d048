"""Associative recall on Table 1's own model at the cheap end of the paper's grid (issue 35): Figures 4, 5, 16 and
17 at width 256, QK 64, 4 × 4, Adam 1e-4, batch 32, 3 seeds."""
