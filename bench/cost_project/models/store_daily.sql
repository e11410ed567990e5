select o.store_id, o.ordered_on, count(*) as orders, sum(t.total) as revenue from {{ ref('orders') }} o join {{ ref('order_totals') }} t on t.order_id = o.order_id group by o.store_id, o.ordered_on
