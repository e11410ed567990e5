{#- A model over an estimated model: estimated from that model's estimates. -#}
select purchase_id, lower(status_upper) as status, customer_md5, purchase_year
from {{ ref('purchases_enriched') }}
