select o.customer_id, count(*) as orders, min(o.ordered_on) as first_order, max(o.ordered_on) as last_order,
       sum(case when o.status = 'returned' then 1 else 0 end) as returns
from {{ ref('stg_orders') }} o
group by o.customer_id
