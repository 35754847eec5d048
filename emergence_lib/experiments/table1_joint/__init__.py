"""Figure 3's law as the paper measured it: one joint fit over its grid, on fresh seeds of Table 1's model (03)."""
