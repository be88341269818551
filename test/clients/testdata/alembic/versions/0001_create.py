"""create authors, books and tags"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade():
    op.create_table(
        "authors",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("born", sa.Date),
    )
    op.create_table(
        "books",
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=True),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("authors.id"), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("price", sa.Numeric(10, 2)),
    )
    op.create_table(
        "tags",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(50), nullable=False, unique=True),
        sa.Column("hits", sa.Integer, nullable=False, server_default="0"),
    )


def downgrade():
    op.drop_table("tags")
    op.drop_table("books")
    op.drop_table("authors")
