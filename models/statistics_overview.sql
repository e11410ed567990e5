{#- One row per analyzed table: its size, how much of it has statistics, its last run and whether
    its data changed since (from the latest analyze_stale check; 'unchecked' before the first). -#}
with tables as (
  select * from {{ ref('table_statistics') }} where partition_spec = ''
),
columns as (
  select table_schema, table_name, count(*) as columns_analyzed, max(cast(sampled as int)) = 1 as sampled
  from {{ ref('column_statistics') }} where partition_spec = ''
  group by table_schema, table_name
),
last_runs as (
  select table_schema, table_name, max_by(struct(run_id, started_at, finished_at, status, targets_scanned, partitions_skipped, rows_scanned,
                                                 bytes_scanned, sketch_bytes, plan_ms, scan_ms, merge_ms, publish_ms, notes), started_at) as run
  from {{ ref('analyze_runs') }}
  where table_name is not null
  group by table_schema, table_name
),
staleness as (
  select table_schema, table_name, status, checked_at from {{ ref('table_staleness') }} where partition_spec = ''
)
select t.table_schema, t.table_name, t.row_count, t.size_bytes, t.file_count, t.partition_count, t.partitions_analyzed,
       coalesce(c.columns_analyzed, 0) as columns_analyzed, coalesce(c.sampled, false) as sampled,
       t.collected_at,
       coalesce(s.status, 'unchecked') as freshness, s.checked_at,
       r.run.run_id as last_run_id, r.run.status as last_run_status, r.run.started_at as last_run_started_at,
       r.run.targets_scanned as last_run_partitions_scanned, r.run.partitions_skipped as last_run_partitions_skipped,
       r.run.rows_scanned as last_run_rows_scanned, r.run.bytes_scanned as last_run_bytes_scanned, r.run.sketch_bytes as last_run_sketch_bytes,
       r.run.plan_ms as last_run_plan_ms, r.run.scan_ms as last_run_scan_ms, r.run.merge_ms as last_run_merge_ms, r.run.publish_ms as last_run_publish_ms,
       r.run.notes as last_run_notes
from tables t
left join columns c on c.table_schema = t.table_schema and c.table_name = t.table_name
left join last_runs r on r.table_schema = t.table_schema and r.table_name = t.table_name
left join staleness s on s.table_schema = t.table_schema and s.table_name = t.table_name
