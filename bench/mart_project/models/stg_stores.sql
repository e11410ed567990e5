select id as store_id, concat('store ', id) as city, element_at(array('north', 'south', 'east', 'west'), cast(id % 4 as int) + 1) as region
from range(50)
