"""The referee server: FastAPI over the rules engine, with an append-only SQLite event log.

``app.create_app`` builds the application; ``referee.Referee`` hosts the tables (one lock and
one event log per table); ``store.EventStore`` is the database; ``routes`` are thin.
"""
