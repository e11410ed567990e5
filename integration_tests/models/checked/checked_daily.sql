{#- Eight daily partitions of 100 rows; var checked_last_day_rows sizes the newest. -#}
{{ config(partition_by=['day']) }}
select id, cast(least(floor(id / 100), 7) + 1 as int) as day
from range(700 + {{ var('checked_last_day_rows', 100) }})
