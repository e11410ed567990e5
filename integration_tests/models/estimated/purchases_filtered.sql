{#- Filters scale the row count from the inputs' histograms and top values. Columns without an
    alias are estimated under the names Spark gives them. -#}
select purchase_id, customer, amount, status, upper(status) as status_upper, quantity,
       nvl(quantity, 0), year(purchased_on), char_length(customer)
from {{ ref('purchases') }}
where amount >= 250 and status in ('paid', 'shipped')
