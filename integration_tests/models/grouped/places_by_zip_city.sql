{#- GROUP BY a column group: one row per (zip, city), which the product of their NDVs overshoots 100 times. -#}
select zip, city, count(*) as places, sum(amount) as amount
from {{ ref('places') }}
group by zip, city
