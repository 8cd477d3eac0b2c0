"""Prompts and requests: versioned prompt files, stage contexts, rendering, context manifests (ARCHITECTURE 7-8)."""
