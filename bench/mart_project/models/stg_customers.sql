select id as customer_id, concat('customer ', id) as name, element_at(array('DE', 'FR', 'US', 'JP', 'BR', 'IN'), cast(id % 6 as int) + 1) as country,
       date_add(date'2020-01-01', cast(id % 1500 as int)) as signed_up, id % 11 = 0 as is_business
from range(50000)
