select i.order_id, sum(i.quantity * p.price) as total, count(*) as items, count(distinct p.category) as categories
from {{ ref('stg_order_items') }} i join {{ ref('stg_products') }} p on p.product_id = i.product_id
group by i.order_id
