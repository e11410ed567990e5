select i.order_id, sum(i.quantity * p.price) as total, count(*) as items from {{ ref('order_items') }} i join {{ ref('products') }} p on i.product_id = p.product_id group by i.order_id
