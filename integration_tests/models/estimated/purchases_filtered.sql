{#- Filters scale the row count from the inputs' histograms and top values. -#}
select purchase_id, customer, amount, status, upper(status) as status_upper, quantity
from {{ ref('purchases') }}
where amount >= 250 and status in ('paid', 'shipped')
