"""The team library: one catalog on PostgreSQL with pgvector, shared by several reviewers
and the cluster (docs/library.md, "A team library")."""
