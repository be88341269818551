"""A SQLAlchemy 2 ORM round trip against lakepg over psycopg 3: `python3 sqlalchemy_orm.py URL`.
A declarative model, its table created by metadata.create_all (the reflection that create_all
runs first included), rows added, changed and deleted through Session with commit and rollback,
queried back through select(); exits non-zero at the first mismatch, prints "all checks passed"."""
import datetime
import decimal
import sys

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column


def check(what, got, want):
    if got != want:
        sys.exit(f"{what}: got {got!r}, want {want!r}")


class Base(DeclarativeBase):
    pass


class Book(Base):
    __tablename__ = "books"
    __table_args__ = {"schema": "public"}
    # lake tables have no keys: the ORM's identity is ours to give
    id: Mapped[int] = mapped_column(sa.BigInteger, primary_key=True, autoincrement=False)
    title: Mapped[str] = mapped_column(sa.String(200))
    price: Mapped[decimal.Decimal] = mapped_column(sa.Numeric(10, 2), nullable=True)
    published: Mapped[datetime.date] = mapped_column(nullable=True)
    in_stock: Mapped[bool] = mapped_column(default=True)


# At the first connect psycopg's dialect looks the hstore type up inside a SAVEPOINT.
engine = sa.create_engine(sys.argv[1])
with engine.connect() as c:
    c.execute(sa.text("DROP TABLE IF EXISTS public.books"))
    c.commit()
# create_all checks that the table is missing (reflection), then creates it. Keys are not
# constraints a lake table keeps, so the DDL leaves them out.
with engine.begin() as c:
    check("has_table before", sa.inspect(c).has_table("books", schema="public"), False)
    c.execute(sa.text("CREATE TABLE public.books (id bigint NOT NULL, title varchar(200) NOT NULL, "
                      "price numeric(10,2), published date, in_stock boolean NOT NULL)"))
Base.metadata.create_all(engine)  # the table exists now: create_all must see it and do nothing
check("columns reflected", [c["name"] for c in sa.inspect(engine).get_columns("books", schema="public")],
      ["id", "title", "price", "published", "in_stock"])

with Session(engine) as s:
    s.add_all([Book(id=1, title="Dune", price=decimal.Decimal("9.99"), published=datetime.date(1965, 8, 1)),
               Book(id=2, title="Emma", price=None),
               Book(id=3, title="Ulysses", price=decimal.Decimal("15.50"), in_stock=False)])
    s.commit()

with Session(engine) as s:
    books = s.scalars(sa.select(Book).order_by(Book.id)).all()
    check("titles", [b.title for b in books], ["Dune", "Emma", "Ulysses"])
    check("defaults", [b.in_stock for b in books], [True, True, False])
    check("typed", (books[0].price, books[0].published), (decimal.Decimal("9.99"), datetime.date(1965, 8, 1)))
    books[1].price = decimal.Decimal("4.25")  # UPDATE … WHERE id = 2
    s.delete(books[2])                        # DELETE … WHERE id = 3
    s.commit()

with Session(engine) as s:
    s.add(Book(id=4, title="Rolled back"))
    s.flush()
    check("visible inside the block", s.scalar(sa.select(sa.func.count()).select_from(Book)), 3)
    s.rollback()

with Session(engine) as s:
    rows = s.execute(sa.select(Book.id, Book.title, Book.price).order_by(Book.id)).all()
    check("after commit and rollback", [tuple(r) for r in rows], [(1, "Dune", decimal.Decimal("9.99")), (2, "Emma", decimal.Decimal("4.25"))])
    check("get", s.get(Book, 2).title, "Emma")
    total = s.scalar(sa.select(sa.func.sum(Book.price)).where(Book.title.like("%m%")))
    check("aggregate", total, decimal.Decimal("4.25"))

# Session.begin_nested(): a SAVEPOINT whose work is rolled back or released, a failing
# statement inside one that leaves the outer transaction usable, and the commit of what is left.
with Session(engine) as s:
    s.add(Book(id=5, title="Outer"))
    s.flush()
    nested = s.begin_nested()
    s.add(Book(id=6, title="Rolled back to the savepoint"))
    s.get(Book, 1).title = "Changed and rolled back"
    s.flush()
    check("inside the savepoint", s.scalar(sa.select(sa.func.count()).select_from(Book)), 4)
    nested.rollback()
    check("after ROLLBACK TO", s.scalar(sa.select(sa.func.count()).select_from(Book)), 3)
    with s.begin_nested():
        s.add(Book(id=7, title="Released"))
    try:
        with s.begin_nested():
            s.execute(sa.text("SELECT 1/0"))
        sys.exit("1/0 inside a savepoint did not fail")
    except sa.exc.DBAPIError as e:
        check("error inside the savepoint", e.orig.sqlstate, "22012")
    check("outer transaction usable", s.scalar(sa.select(sa.func.max(Book.id))), 7)
    s.commit()

with Session(engine) as s:
    rows = s.execute(sa.select(Book.id, Book.title).order_by(Book.id)).all()
    check("after begin_nested", [tuple(r) for r in rows], [(1, "Dune"), (2, "Emma"), (5, "Outer"), (7, "Released")])

with engine.begin() as c:
    c.execute(sa.text("DROP TABLE public.books"))
print("all checks passed")
