"""Figures 14 and 15 on Table 1's width (issue 34 item 2): the 1-layer, 1-head model at width 256, QK 64, Adam 1e-4
and SGD 5e-3, as the paper states."""
