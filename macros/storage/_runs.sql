{#- Runs as the events tell them: analyze_runs, a run's report, each table's latest succeeded run. -#}

{#- One row per run: started, finished, status (running | succeeded | failed) and its metrics;
    of the events that match where (a `where` clause), else of every run. -#}
{% macro _analyze_runs_sql(where='') %}
  select run_id,
         max(invocation_id) as invocation_id,
         max(table_schema) as table_schema,
         max(table_name) as table_name,
         max(request) as request,
         min(event_at) as started_at,
         max(case when event in ('succeeded', 'unchanged', 'failed') then event_at end) as finished_at,
         case when max(case when event = 'failed' then 1 else 0 end) = 1 then 'failed'
              when max(case when event in ('succeeded', 'unchanged') then 1 else 0 end) = 1 then 'succeeded'
              else 'running' end as status,
         max(partitions_scanned) as targets_scanned,
         max(partitions_skipped) as partitions_skipped,
         max(rows_scanned) as rows_scanned,
         max(bytes_scanned) as bytes_scanned,
         max(sketch_bytes) as sketch_bytes,
         max(plan_ms) as plan_ms, max(scan_ms) as scan_ms, max(merge_ms) as merge_ms, max(publish_ms) as publish_ms,
         max(error) as error,
         max(notes) as notes,
         max(statements) as statements
  from {{ dbt_analyze._storage_relation('analyze_run_events') }}
  {{ where }}
  group by run_id
{% endmacro %}

{#- The columns of analyze_runs that a run's report shows (format_statistics). -#}
{% macro _reported_run_columns() %}
  {{ return(['status', 'targets_scanned', 'partitions_skipped', 'rows_scanned', 'bytes_scanned', 'sketch_bytes',
             'plan_ms', 'scan_ms', 'merge_ms', 'publish_ms', 'notes']) }}
{% endmacro %}

{#- A succeeded (or unchanged) run's row of analyze_runs as the run itself knows it, in
    _reported_run_columns: the metrics of its ending event (_event_sql's), and what it stored
    ([rows, bytes, sketch_bytes]). -#}
{% macro _run_metrics(metrics, own=none) %}
  {%- set known = {'status': 'succeeded', 'targets_scanned': metrics.partitions_scanned,
                   'rows_scanned': own[0] if own else none, 'bytes_scanned': own[1] if own else none,
                   'sketch_bytes': own[2] if own else none} -%}
  {%- set row = {} -%}
  {%- for column in dbt_analyze._reported_run_columns() -%}
    {%- do row.update({column: known[column] if column in known else metrics.get(column)}) -%}
  {%- endfor -%}
  {{ return(row) }}
{% endmacro %}

{#- The latest succeeded run of every table. -#}
{% macro _latest_runs_sql() %}
  select table_schema, table_name, max_by(run_id, event_at) as run_id
  from {{ dbt_analyze._storage_relation('analyze_run_events') }}
  where event = 'succeeded'
  group by table_schema, table_name
{% endmacro %}

{% macro _latest_run_id(table) %}
  {%- set found = run_query(dbt_analyze._latest_run_id_sql(table)) -%}
  {{ return(found[0][0] if found else none) }}
{% endmacro %}

{#- The query of the table's latest succeeded run (the run its current statistics come from). -#}
{% macro _latest_run_id_sql(table) %}
  {{ return('select max_by(run_id, event_at) from ' ~ dbt_analyze._storage_relation('analyze_run_events')
            ~ " where event = 'succeeded' and " ~ dbt_analyze._table_where_sql(table)) }}
{% endmacro %}
