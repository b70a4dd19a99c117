"""The project's own lint rules, which the linters it uses run (import-linter's contract types)."""
