{{ config(materialized='incremental', incremental_strategy='append') }}
select order_id, status, updated_at
from {{ ref('orders') }}
{% if is_incremental() %}
where updated_at > (select max(updated_at) from {{ this }})
{% endif %}
