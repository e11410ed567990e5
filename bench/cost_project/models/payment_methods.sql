select method, count(*) as payments, avg(amount) as mean_amount, max(amount) as max_amount from {{ ref('payments') }} group by method
