"""What the paper leaves unsaid: its unstated choices read another way, on Table 1's model (chapter B4)."""
