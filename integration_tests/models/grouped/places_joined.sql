{#- A two-column join: (zip, city) of both sides is a group of each. -#}
select p.place_id, p.amount, z.places
from {{ ref('places') }} p
join {{ ref('places_by_zip_city') }} z on p.zip = z.zip and p.city = z.city
