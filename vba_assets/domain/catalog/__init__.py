"""The world catalogs: search results, name matching and ranking, the lookup tool (ARCHITECTURE 6.2-6.3, 11)."""
