{{ config(materialized='incremental', unique_key='order_id', incremental_strategy='delete+insert') }}
select order_id, customer_id, amount, status, updated_at
from {{ ref('orders') }}
{% if is_incremental() %}
where updated_at > (select max(updated_at) from {{ this }})
{% endif %}
