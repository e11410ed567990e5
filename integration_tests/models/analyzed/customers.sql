{#- a model's analyze config sets the run's options, here the items its top-k sketches track (a test
    adds options through the var customers_analyze) -#}
{{ config(analyze=dict({'top_k_tracked': 64}, **var('customers_analyze', {}))) }}
select customer, count(*) as order_count, sum(amount) as total_amount, max(is_paid) as ever_paid
from {{ ref('orders_seed') }}
where customer is not null
group by customer
