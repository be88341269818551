"""rename books.price to list_price and tags to labels"""
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade():
    op.alter_column("books", "price", new_column_name="list_price")
    op.rename_table("tags", "labels")


def downgrade():
    op.rename_table("labels", "tags")
    op.alter_column("books", "list_price", new_column_name="price")
