select p.product_id, p.category, sum(i.quantity) as units, sum(i.quantity * p.price) as revenue, count(distinct i.order_id) as orders
from {{ ref('stg_order_items') }} i join {{ ref('stg_products') }} p on p.product_id = i.product_id
group by p.product_id, p.category
