{#- DISTINCT over a column group: status determines flag. -#}
select distinct status, flag
from {{ ref('places') }}
