-- singular test: every customer's total in customer_orders is the sum of its orders
select c.customer_id, c.total_amount, o.total
from {{ ref('customer_orders') }} c
left join (select customer_id, sum(amount) as total from {{ ref('orders') }} group by customer_id) o
  on o.customer_id = c.customer_id
where c.total_amount <> coalesce(o.total, 0)
