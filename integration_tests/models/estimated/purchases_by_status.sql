{#- GROUP BY: one row per status. -#}
select status, count(*) as purchases
from {{ ref('purchases') }}
group by status
