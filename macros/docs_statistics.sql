{#-
  dbt run-operation docs_statistics --args '{path: target/dbt_analyze_statistics.json}'

  The current table-level statistics of every analyzed table, as one JSON document for the docs
  (run by `dbt-analyze docs generate`, which puts them into the docs site): table rows, column
  rows, column groups, histograms, top values, the latest staleness check and the last run of each table, the
  table and column rows of its last 30 succeeded runs (the history pictures), and the latest
  estimates of models' columns (estimate_statistics).
-#}
{% macro docs_statistics(path) %}
  {{ return(adapter.dispatch('docs_statistics', 'dbt_analyze')(path)) }}
{% endmacro %}

{% macro default__docs_statistics(path) %}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- do dbt_analyze._await_statistics() -%}
  {%- do dbt_analyze._ensure_storage() -%}
  {%- set sources = {
        'tables': "select * from " ~ dbt_analyze._storage_relation('table_statistics') ~ " where partition_spec = ''",
        'columns': "select * from " ~ dbt_analyze._storage_relation('column_statistics') ~ " where partition_spec = ''",
        'column_groups': "select * from " ~ dbt_analyze._storage_relation('column_group_statistics')
            ~ " where partition_spec = '' order by table_schema, table_name, column_names",
        'histograms': "select * from " ~ dbt_analyze._storage_relation('column_histograms')
            ~ " where partition_spec = '' order by table_schema, table_name, column_name, bin",
        'top_values': "select * from " ~ dbt_analyze._storage_relation('column_top_values')
            ~ " where partition_spec = '' and rank <= " ~ dbt_analyze._var('dbt_analyze_top_k') | int
            ~ " order by table_schema, table_name, column_name, rank",
        'estimates': "select * from " ~ dbt_analyze._storage_relation('column_statistics_estimated')
            ~ " order by table_schema, table_name, column_name",
        'staleness': "select * from " ~ dbt_analyze._storage_relation('table_staleness') ~ " where partition_spec = ''",
        'history': "select table_schema, table_name, column_name, run_id, cast(collected_at as string) as collected_at, row_count, null_count, distinct_count from ("
                   ~ "select h.*, dense_rank() over (partition by table_schema, table_name order by h.run_id desc) as age from "
                   ~ dbt_analyze._storage_relation('statistics_history') ~ " h left semi join (select run_id from "
                   ~ dbt_analyze._storage_relation('analyze_run_events')
                   ~ " where event = 'succeeded') r on h.run_id = r.run_id where h.partition_spec = ''"
                   ~ " and coalesce(h.data_type, '') <> " ~ dbt_analyze._quote_literal(dbt_analyze._column_group_type())
                   ~ ") where age <= 30 order by table_schema, table_name, column_name, run_id",
        'runs': "select r.* from " ~ dbt_analyze._storage_relation('analyze_runs')
            ~ " r join (select table_schema, table_name, max(started_at) as started_at from "
                ~ dbt_analyze._storage_relation('analyze_runs')
                ~ " group by all) l using (table_schema, table_name, started_at)",
      } -%}
  {%- set document = {} -%}
  {%- for name, sql in sources.items() -%}
    {%- do document.update({name: dbt_analyze._json_rows(sql)}) -%}
  {%- endfor -%}
  {{ log('dbt_analyze: statistics of ' ~ document.tables | length ~ ' table(s) for the docs written to '
         ~ adapter.dbt_analyze_write_text(path, tojson(document)), info=True) }}
{% endmacro %}
