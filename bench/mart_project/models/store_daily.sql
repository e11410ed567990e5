select o.store_id, s.region, o.ordered_on, count(*) as orders, sum(t.total) as revenue
from {{ ref('stg_orders') }} o join {{ ref('stg_stores') }} s on s.store_id = o.store_id
join {{ ref('order_totals') }} t on t.order_id = o.order_id
group by o.store_id, s.region, o.ordered_on
