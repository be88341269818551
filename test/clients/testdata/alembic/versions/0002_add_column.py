"""add books.published and an index on it; widen authors.name, make books.title nullable"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade():
    op.add_column("books", sa.Column("published", sa.Date, nullable=True))
    op.add_column("authors", sa.Column("country", sa.String(2), server_default="GB", nullable=False))
    op.create_index("ix_books_published", "books", ["published"])
    op.alter_column("authors", "name", type_=sa.String(200), existing_type=sa.String(100), existing_nullable=False)
    op.alter_column("books", "title", nullable=True, existing_type=sa.String(200))


def downgrade():
    op.alter_column("books", "title", nullable=False, existing_type=sa.String(200))
    op.alter_column("authors", "name", type_=sa.String(100), existing_type=sa.String(200), existing_nullable=False)
    op.drop_index("ix_books_published", table_name="books")
    op.drop_column("authors", "country")
    op.drop_column("books", "published")
