{{ config(materialized='table') }}
select c.customer_id,
       c.name,
       c.tier,
       count(o.order_id) as order_count,
       coalesce(sum(o.amount), 0) as total_amount,
       round(avg(o.amount), 2) as avg_amount,
       max(o.updated_at) as last_order_at
from {{ ref('stg_customers') }} c
left join {{ ref('orders') }} o on o.customer_id = c.customer_id
group by c.customer_id, c.name, c.tier
