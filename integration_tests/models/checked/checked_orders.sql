{#- A model whose statistics the package's data tests check; vars seed anomalies (test_statistics_tests.py). -#}
select id as order_id,
       if(id < {{ var('checked_nulls', 0) }}, null, concat('s', cast(id % {{ var('checked_statuses', 40) }} as string))) as status,
       cast(100 + id % 7 + {{ var('checked_shift', 0) }} as double) as amount
from range({{ var('checked_rows', 1000) }})
