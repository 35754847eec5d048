"""The shape of Figure 3's law on the paper's model: the collapse on T/B, the bend, and the d = 16 screen (issue 61)."""
