select o.customer_id, count(*) as orders, min(o.ordered_on) as first_order, max(o.ordered_on) as last_order from {{ ref('orders') }} o group by o.customer_id
