select id as payment_id, id as order_id, element_at(array('card', 'card', 'invoice', 'voucher'), cast(id % 4 as int) + 1) as method,
       cast((id * 7919 % 50000) / 100.0 as decimal(12, 2)) as amount
from range(300000)
