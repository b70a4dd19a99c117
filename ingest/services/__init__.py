"""Every write to sources, issues and ingest runs goes through these modules."""
