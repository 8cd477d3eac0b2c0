"""The provider-neutral model contract: requests, replies, records, schemas and the correction loop (ARCHITECTURE 8)."""
