"""Django's ORM against one server: `python3 django_check.py HOST PORT USER DBNAME OUT.json`.
Settings are made in a temporary directory (PostgreSQL backend over psycopg 3; no SQLite), the
migrations of django.contrib.auth, contenttypes and testdata/django_shop are made and applied by
`migrate`, then the ORM: create/save/update/delete, bulk_create reading back ids, get_or_create,
update_or_create, select_related joins, aggregates, transaction.atomic rolled back and nested
savepoints, select_for_update, auth users and groups. Exits non-zero at the first mismatch;
writes the tables' rows (without the times they were written) to OUT.json for tools_test.go to
compare between lakepg and PostgreSQL, and prints "all checks passed"."""
import datetime
import decimal
import json
import os
import shutil
import sys
import tempfile

host, port, user, dbname, out_path = sys.argv[1:6]
here = os.path.dirname(os.path.abspath(__file__))
work = tempfile.mkdtemp(prefix="django_check_")
shutil.copytree(os.path.join(here, "django_shop"), os.path.join(work, "django_shop"))
os.makedirs(os.path.join(work, "django_shop", "migrations"), exist_ok=True)
open(os.path.join(work, "django_shop", "migrations", "__init__.py"), "w").close()
with open(os.path.join(work, "check_settings.py"), "w") as f:
    f.write(f"""
SECRET_KEY = "lakepg-check"
USE_TZ = True
TIME_ZONE = "UTC"
INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "django_shop"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DATABASES = {{"default": {{"ENGINE": "django.db.backends.postgresql", "HOST": {host!r}, "PORT": {port!r},
                          "USER": {user!r}, "NAME": {dbname!r}, "PASSWORD": ""}}}}
""")
sys.path.insert(0, work)
os.environ["DJANGO_SETTINGS_MODULE"] = "check_settings"

import django  # noqa: E402
from django.core.management import call_command  # noqa: E402

django.setup()

from django.contrib.auth.models import Group, User  # noqa: E402
from django.db import IntegrityError, connection, transaction  # noqa: E402
from django.db.models import Count, F, Sum  # noqa: E402

from django_shop.models import Category, Order, Product  # noqa: E402

D = decimal.Decimal


def check(what, got, want):
    if got != want:
        sys.exit(f"django_check.py ({host}:{port}/{dbname}): {what}: got {got!r}, want {want!r}")


call_command("makemigrations", "django_shop", verbosity=0)
call_command("migrate", verbosity=0)
check("tables", sorted(t for t in connection.introspection.table_names() if t.startswith("django_shop")),
      ["django_shop_category", "django_shop_order", "django_shop_product"])

# create and read back generated ids
books = Category.objects.create(name="Books", slug="books")
games = Category(name="Games", slug="games")
games.save()
check("category ids", (books.pk, games.pk), (1, 2))
p1 = Product.objects.create(category=books, name="Emma", price=D("7.99"), stock=3)
check("product id", p1.pk, 1)
check("default read back", Product.objects.get(pk=1).active, True)

# bulk_create returns ids (INSERT … RETURNING)
made = Product.objects.bulk_create([
    Product(category=books, name="Ulysses", price=D("15.00"), stock=1),
    Product(category=games, name="Chess", price=D("30.50"), stock=10),
    Product(category=games, name="Go", price=D("25.00"), stock=0, active=False),
])
check("bulk_create ids", [p.pk for p in made], [2, 3, 4])
Order.objects.bulk_create([Order(product_id=i % 4 + 1, quantity=i, placed=datetime.date(2024, 1, 1 + i))
                           for i in range(1, 9)])
check("orders", Order.objects.count(), 8)

# get_or_create / update_or_create
cat, created = Category.objects.get_or_create(name="Books", defaults={"slug": "x"})
check("get_or_create existing", (cat.pk, created, cat.slug), (1, False, "books"))
cat, created = Category.objects.get_or_create(name="Music", defaults={"slug": "music"})
check("get_or_create new", (cat.pk, created), (3, True))
p, created = Product.objects.update_or_create(name="Chess", defaults={"price": D("29.99"), "stock": 9})
check("update_or_create existing", (p.pk, created, p.price), (3, False, D("29.99")))
p, created = Product.objects.update_or_create(name="Piano", category=cat,
                                              defaults={"price": D("999.00"), "stock": 1})
check("update_or_create new", (p.pk, created), (5, True))

# updates and deletes
check("update()", Product.objects.filter(category=games).update(stock=F("stock") + 1), 2)
emma = Product.objects.get(name="Emma")
emma.price = D("8.49")
emma.save(update_fields=["price"])
Order.objects.filter(quantity__gt=6).delete()
check("orders after delete", Order.objects.count(), 6)
try:
    Product.objects.get(name="Piano").delete()
except Exception as e:  # PROTECT would only fire with orders; Piano has none
    sys.exit(f"delete Piano: {e!r}")
try:
    with transaction.atomic():
        Category.objects.create(name="Books", slug="dup")
    sys.exit("duplicate category name: no IntegrityError")
except IntegrityError:
    pass

# transactions: a rolled-back atomic block, a savepoint inside a kept one
try:
    with transaction.atomic():
        Product.objects.filter(name="Emma").update(stock=0)
        Category.objects.create(name="Gone", slug="gone")
        raise RuntimeError("roll back")
except RuntimeError:
    pass
check("rolled back update", Product.objects.get(name="Emma").stock, 3)
check("rolled back insert", Category.objects.filter(name="Gone").exists(), False)
with transaction.atomic():
    Category.objects.create(name="Toys", slug="toys")
    try:
        with transaction.atomic():  # a savepoint
            Product.objects.create(category_id=1, name="Lost", price=D("1.00"))
            raise RuntimeError("roll back the savepoint")
    except RuntimeError:
        pass
    Product.objects.create(category=Category.objects.get(name="Toys"), name="Yo-yo", price=D("2.50"))
check("savepoint rolled back", Product.objects.filter(name="Lost").exists(), False)
check("outer block kept", Product.objects.filter(name="Yo-yo").count(), 1)

# joins and aggregates
rows = list(Product.objects.select_related("category").filter(active=True).order_by("name")
            .values_list("name", "category__name"))
check("select_related", rows, [("Chess", "Games"), ("Emma", "Books"), ("Ulysses", "Books"), ("Yo-yo", "Toys")])
per_cat = list(Category.objects.annotate(n=Count("products"), stock=Sum("products__stock")).order_by("name")
               .values_list("name", "n", "stock"))
check("annotate", per_cat, [("Books", 2, 4), ("Games", 2, 11), ("Music", 0, None), ("Toys", 1, 0)])
qty = Order.objects.filter(product__category__slug="books").aggregate(total=Sum("quantity"))["total"]
check("aggregate over a join", qty, 1 + 4 + 5)

# row locks in a block, in_bulk, values() grouped by a joined column
with transaction.atomic():
    emma = Product.objects.select_for_update().get(name="Emma")
    emma.stock = F("stock") - 1
    emma.save(update_fields=["stock"])
check("select_for_update", Product.objects.get(name="Emma").stock, 2)
check("in_bulk", sorted(p.name for p in Product.objects.in_bulk([1, 3]).values()), ["Chess", "Emma"])
by_cat = list(Product.objects.values("category__slug").annotate(n=Count("id")).order_by("category__slug"))
check("values annotate", [(r["category__slug"], r["n"]) for r in by_cat], [("books", 2), ("games", 2), ("toys", 1)])

# auth
u = User.objects.create_user("ann", "ann@example.com", "secret")
g = Group.objects.create(name="staff")
u.groups.add(g)
check("user in group", list(User.objects.filter(groups__name="staff").values_list("username", flat=True)), ["ann"])
check("password", User.objects.get(username="ann").check_password("secret"), True)


def rows_of(model, *fields):
    return [[str(v) if isinstance(v, D) else v.isoformat() if isinstance(v, datetime.date) else v
             for v in r] for r in model.objects.order_by("pk").values_list(*fields)]


out = {
    "category": rows_of(Category, "id", "name", "slug"),
    "product": rows_of(Product, "id", "category_id", "name", "price", "stock", "active"),
    "order": rows_of(Order, "id", "product_id", "quantity", "note", "placed"),
    "user": rows_of(User, "id", "username", "email", "is_staff", "is_active"),
    "migrations": sorted(connection.introspection.table_names()),
}
with open(out_path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
shutil.rmtree(work, ignore_errors=True)
print("all checks passed")
