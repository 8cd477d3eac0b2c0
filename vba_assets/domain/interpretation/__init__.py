"""The interpretation: its output contract, dates and the rules that check it (ARCHITECTURE 7)."""
