"""The models django_check.py migrates and uses: keys Django generates (identity columns),
foreign keys, unique and indexed columns, decimals, nullable text, timestamps."""
from django.db import models


class Category(models.Model):
    name = models.CharField(max_length=50, unique=True)
    slug = models.SlugField(max_length=50)

    class Meta:
        app_label = "django_shop"


class Product(models.Model):
    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="products")
    name = models.CharField(max_length=100)
    price = models.DecimalField(max_digits=10, decimal_places=2)
    stock = models.IntegerField(default=0)
    active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "django_shop"


class Order(models.Model):
    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="orders")
    quantity = models.IntegerField()
    note = models.TextField(null=True, blank=True)
    placed = models.DateField()

    class Meta:
        app_label = "django_shop"
