select c.customer_id, c.country, c.is_business, coalesce(sum(t.total), 0) as lifetime_value, count(o.order_id) as orders
from {{ ref('stg_customers') }} c
left join {{ ref('stg_orders') }} o on o.customer_id = c.customer_id
left join {{ ref('order_totals') }} t on t.order_id = o.order_id
group by c.customer_id, c.country, c.is_business
