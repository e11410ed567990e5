{#- An analyzed table for estimate_statistics: 20,000 rows with nulls, skew and dates; the models
    beside it are estimated from its statistics, then built and analyzed to check the estimates. -#}
{{ config(post_hook="{{ dbt_analyze.analyze() }}") }}
select cast(id as int) as purchase_id,
       case when id % 10 = 0 then null else concat('customer_', cast(id % 997 as string)) end as customer,
       cast(((id * 7919) % 100000) / 100.0 as decimal(10, 2)) as amount,
       element_at(array('new', 'paid', 'paid', 'shipped', 'shipped', 'shipped', 'returned'), cast(id % 7 as int) + 1) as status,
       date_add(date'2024-01-01', cast((id * 13) % 365 as int)) as purchased_on,
       case when id % 3 = 0 then null else cast(id % 50 as int) end as quantity
from range(20000)
