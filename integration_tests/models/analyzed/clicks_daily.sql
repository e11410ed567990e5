{#- A microbatch model (insert_overwrite of each batch's day on Spark): dbt runs its post-hook once,
    after the last batch, and it must scan only the days the run wrote. Built only with the var
    with_microbatch and --event-time-start/-end: a plain build would run a batch per day since begin. -#}
{{ config(enabled=var('with_microbatch', false), materialized='incremental', incremental_strategy='microbatch',
          event_time='clicked_at', begin='2024-01-01', batch_size='day', lookback=0, partition_by=['click_date']) }}
select id, page, clicked_at, to_date(clicked_at) as click_date
from {{ ref('clicks') }}
