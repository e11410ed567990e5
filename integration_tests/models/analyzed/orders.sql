{{ config(partition_by=['order_date'], analyze={'publish': true}) }}
-- dbt-spark's seed loader writes empty CSV fields of string columns as the text 'None'.
select order_id, nullif(customer, 'None') as customer, cast(amount as decimal(10, 2)) as amount, status, is_paid,
       cast(order_date as string) as order_date
from {{ ref('orders_seed') }}
