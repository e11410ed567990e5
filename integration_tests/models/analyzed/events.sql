{#- An incremental model that appends one day per run (var events_day): its post-hook must scan
    only the partition that run wrote. -#}
{{ config(materialized='incremental', incremental_strategy='append', partition_by=['day']) }}
{% set day = var('events_day', 1) | int %}
select id, id % 7 as kind, concat('event-', id) as label, cast({{ day }} as int) as day
from range({{ (day - 1) * 100 }}, {{ day * 100 }})
{% if is_incremental() %}
where {{ day }} not in (select distinct day from {{ this }})
{% endif %}
