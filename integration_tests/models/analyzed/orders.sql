{{ config(partition_by=['order_date']) }}
select order_id, customer, cast(amount as decimal(10, 2)) as amount, status, is_paid,
       cast(order_date as string) as order_date
from {{ ref('orders_seed') }}
