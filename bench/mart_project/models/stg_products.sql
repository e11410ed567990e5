select id as product_id, concat('product ', id) as title, element_at(array('books', 'garden', 'toys', 'food', 'tools'), cast(id % 5 as int) + 1) as category,
       cast(1 + (id * 37 % 20000) / 100.0 as decimal(10, 2)) as price
from range(2000)
