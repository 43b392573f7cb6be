"""The window's dialogs and what only they show: Settings (with its model servers box and
the engine choices it shares with the Models dialog), Models (the catalog, downloads and
removals), Help's small boxes, and the report of an unexpected exception (failures.py,
which also writes it to the log)."""
