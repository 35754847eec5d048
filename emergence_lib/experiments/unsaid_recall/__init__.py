"""The recall task's unstated choices read another way on the paper's recall model (chapter B4, its second screen)."""
