{#- Clicks on three days, read by the microbatch model clicks_daily (built with it only). -#}
{{ config(enabled=var('with_microbatch', false), event_time='clicked_at') }}
select id, concat('page-', id % 5) as page,
       cast(timestamp'2024-01-01 00:00:00' + make_interval(0, 0, 0, cast(id % 3 as int)) as timestamp) as clicked_at
from range(300)
