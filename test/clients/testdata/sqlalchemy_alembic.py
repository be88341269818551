"""SQLAlchemy 2 ORM over tables that Alembic migrations made: `python3 sqlalchemy_alembic.py URL
OUT.json`. Alembic (testdata/alembic) creates tables with autoincrement integer keys, a foreign
key and a unique column, adds columns and an index, widens a varchar, drops a NOT NULL, renames
a column and a table; a downgrade to the first revision (narrowing the varchar back, SET NOT
NULL) and the upgrade again. Then the ORM: objects added through relationships
read back their generated ids (INSERT … RETURNING), bulk inserts with RETURNING, updates,
deletes, a rollback, joins and eager loading, and upserts through
insert().on_conflict_do_update / on_conflict_do_nothing. Exits non-zero at the first mismatch;
writes the tables' rows and reflected columns to OUT.json for tools_test.go to compare between
lakepg and PostgreSQL, and prints "all checks passed"."""
import datetime
import decimal
import json
import os
import sys

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship, selectinload

url, out_path = sys.argv[1], sys.argv[2]


def check(what, got, want):
    if got != want:
        sys.exit(f"sqlalchemy_alembic.py: {what}: got {got!r}, want {want!r}")


engine = sa.create_engine(url)
cfg = Config()
cfg.set_main_option("script_location", os.path.join(os.path.dirname(os.path.abspath(__file__)), "alembic"))
cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))


def revision():
    with engine.connect() as c:
        return MigrationContext.configure(c).get_current_revision()


def columns(table):
    return [c["name"] for c in sa.inspect(engine).get_columns(table)]


# migrations up, down to the first and up again
command.upgrade(cfg, "head")
check("revision after upgrade", revision(), "0003")
check("books columns", columns("books"), ["id", "author_id", "title", "list_price", "published"])
check("labels columns", columns("labels"), ["id", "name", "hits"])
command.downgrade(cfg, "0001")
check("revision after downgrade", revision(), "0001")
check("books columns after downgrade", columns("books"), ["id", "author_id", "title", "price"])
check("tags after downgrade", sa.inspect(engine).has_table("tags"), True)
command.upgrade(cfg, "head")
check("revision after second upgrade", revision(), "0003")
engine.dispose()  # the ORM below reflects nothing: it maps what the migrations made


class Base(DeclarativeBase):
    pass


class Author(Base):
    __tablename__ = "authors"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(100))
    born: Mapped[datetime.date | None]
    country: Mapped[str] = mapped_column(sa.String(2), server_default="GB")
    books: Mapped[list["Book"]] = relationship(back_populates="author", order_by="Book.id",
                                               cascade="all, delete-orphan")


class Book(Base):
    __tablename__ = "books"
    id: Mapped[int] = mapped_column(sa.BigInteger, primary_key=True)
    author_id: Mapped[int] = mapped_column(sa.ForeignKey("authors.id"))
    title: Mapped[str] = mapped_column(sa.String(200))
    list_price: Mapped[decimal.Decimal | None] = mapped_column(sa.Numeric(10, 2))
    published: Mapped[datetime.date | None]
    author: Mapped[Author] = relationship(back_populates="books")


class Label(Base):
    __tablename__ = "labels"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(50), unique=True)
    hits: Mapped[int] = mapped_column(server_default="0")


D = decimal.Decimal
with Session(engine) as s:
    austen = Author(name="Jane Austen", born=datetime.date(1775, 12, 16), books=[
        Book(title="Emma", list_price=D("7.99"), published=datetime.date(1815, 12, 23)),
        Book(title="Persuasion", list_price=D("6.50"))])
    joyce = Author(name="James Joyce", country="IE", books=[Book(title="Ulysses", list_price=D("15.00"))])
    s.add_all([austen, joyce])
    s.flush()  # INSERT … RETURNING id, one per row or batched
    check("author ids", (austen.id, joyce.id), (1, 2))
    check("book ids", sorted(b.id for b in austen.books + joyce.books), [1, 2, 3])
    check("server default read back", austen.country, "GB")
    s.commit()

    # bulk INSERT … RETURNING through the ORM
    ids = s.scalars(sa.insert(Book).returning(Book.id, sort_by_parameter_order=True), [
        {"author_id": 2, "title": "Dubliners", "list_price": D("9.25")},
        {"author_id": 2, "title": "Finnegans Wake"},
        {"author_id": 1, "title": "Sanditon"}]).all()
    check("bulk ids", ids, [4, 5, 6])
    s.commit()

with Session(engine) as s:
    emma = s.scalars(sa.select(Book).where(Book.title == "Emma")).one()
    emma.list_price = D("8.49")
    s.delete(s.get(Book, 6))
    s.commit()
    # a change rolled back leaves nothing behind
    s.get(Book, 3).title = "nothing"
    s.add(Author(name="Nobody"))
    s.flush()
    s.rollback()
    check("rolled back title", s.get(Book, 3).title, "Ulysses")
    check("authors after rollback", s.scalar(sa.select(sa.func.count()).select_from(Author)), 2)

    # joins and eager loading
    per_author = s.execute(sa.select(Author.name, sa.func.count(Book.id), sa.func.sum(Book.list_price))
                           .join(Author.books).group_by(Author.name).order_by(Author.name)).all()
    check("books per author", [tuple(r) for r in per_author],
          [("James Joyce", 3, D("24.25")), ("Jane Austen", 2, D("14.99"))])
    authors = s.scalars(sa.select(Author).options(selectinload(Author.books)).order_by(Author.id)).all()
    check("eager loaded", [[b.title for b in a.books] for a in authors],
          [["Emma", "Persuasion"], ["Ulysses", "Dubliners", "Finnegans Wake"]])
    cheap = s.scalars(sa.select(Book.title).join(Book.author).where(Author.country == "IE", Book.list_price < 10)).all()
    check("join with filter", cheap, ["Dubliners"])

# upserts
with engine.begin() as c:
    for round_ in (1, 2):
        stmt = pg_insert(Label).values([{"name": "classic", "hits": 1}, {"name": "irish", "hits": 2}])
        stmt = stmt.on_conflict_do_update(index_elements=[Label.name],
                                          set_={"hits": Label.hits + stmt.excluded.hits})
        got = c.execute(stmt.returning(Label.id, Label.name, Label.hits)).all()
        check(f"upsert round {round_}", sorted(tuple(r) for r in got),
              [(1, "classic", round_), (2, "irish", 2 * round_)])
    got = c.execute(pg_insert(Label).values(name="classic", hits=99).on_conflict_do_nothing()
                    .returning(Label.id)).all()
    check("on_conflict_do_nothing on a duplicate", got, [])
    got = c.execute(pg_insert(Label).values(name="romance").on_conflict_do_nothing(index_elements=["name"])
                    .returning(Label.name, Label.hits)).all()
    check("on_conflict_do_nothing inserting", [tuple(r) for r in got], [("romance", 0)])

# what both servers must agree on
insp = sa.inspect(engine)
out = {"revision": revision(), "tables": {}}
with engine.connect() as c:
    for t in ("authors", "books", "labels"):
        cols = insp.get_columns(t)
        rows = c.execute(sa.text(f"SELECT * FROM {t} ORDER BY id")).all()
        out["tables"][t] = {
            "columns": [[col["name"], str(col["type"]), col["nullable"]] for col in cols],
            "primary_key": insp.get_pk_constraint(t)["constrained_columns"],
            "rows": [[v.isoformat() if isinstance(v, datetime.date) else str(v) if isinstance(v, D) else v
                      for v in r] for r in rows],
        }
with open(out_path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print("all checks passed")
