select id as store_id, concat('store ', id) as city, cast(id % 5 as int) as region from range(20)
