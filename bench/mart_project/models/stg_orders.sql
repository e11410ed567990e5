select id as order_id, cast(pow(id % 50000, 1.3) % 50000 as bigint) as customer_id, cast(id % 50 as bigint) as store_id,
       date_add(date'2024-01-01', cast(id % 365 as int)) as ordered_on,
       element_at(array('placed', 'shipped', 'shipped', 'delivered', 'returned'), cast(id % 5 as int) + 1) as status
from range(300000)
