select p.method, o.status, count(*) as payments, avg(p.amount) as mean_amount, max(p.amount) as max_amount
from {{ ref('stg_payments') }} p join {{ ref('stg_orders') }} o on o.order_id = p.order_id
group by p.method, o.status
