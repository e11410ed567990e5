{#- An incremental model that overwrites the partition of one day per run (var events_day): its
    post-hook must scan only the partition that run wrote, new or rewritten. -#}
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['day']) }}
select kind, count(*) as events, day
from {{ ref('events') }}
{% if is_incremental() %}
where day = {{ var('events_day', 1) | int }}
{% endif %}
group by kind, day
