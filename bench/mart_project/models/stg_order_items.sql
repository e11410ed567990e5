select id as item_id, cast(id / 2 as bigint) as order_id, cast(pow(id % 2000, 1.2) % 2000 as bigint) as product_id,
       cast(1 + id % 4 as int) as quantity
from range(600000)
