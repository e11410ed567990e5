select id as product_id, concat('product ', id) as title, round(5 + (id * 37) % 200 + 0.99, 2) as price, id % 3 = 0 as discontinued from range(120)
