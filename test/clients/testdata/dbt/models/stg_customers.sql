{{ config(materialized='view') }}
select id as customer_id, name, upper(tier) as tier_code, tier, updated_at
from {{ ref('customers') }}
