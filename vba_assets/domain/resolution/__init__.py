"""Entity resolution: plan and assessment outputs, their rules, the candidate index and F/N/D context (ARCHITECTURE 6)."""
