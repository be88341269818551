"""Alembic's environment for sqlalchemy_alembic.py: online migrations over the URL the script
puts in the config, each revision in its own transaction as Alembic does on PostgreSQL."""
from alembic import context
from sqlalchemy import create_engine

config = context.config
engine = create_engine(config.get_main_option("sqlalchemy.url"))
with engine.connect() as connection:
    context.configure(connection=connection, transaction_per_migration=True)
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
