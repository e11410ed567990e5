{#-
  dbt run-operation export_statistics                                   every analyzed table, printed
  dbt run-operation export_statistics --args '{tables: [analytics.orders], path: stats.json}'

  The current statistics of the chosen tables (default: every table with statistics) as one
  versioned JSON document (see macros/transfer/_documents.sql), printed or written to `path`
  (relative to where dbt runs). Sketch states travel too, so imported statistics stay mergeable.
-#}
{% macro export_statistics(tables=none, path=none) %}
  {{ return(adapter.dispatch('export_statistics', 'dbt_analyze')(tables, path)) }}
{% endmacro %}

{% macro default__export_statistics(tables, path) %}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- set tables = [tables] if tables is string else tables -%}
  {#- Named tables are planned (unknown ones refused) before the storage is touched. -#}
  {%- set plans = dbt_analyze._export_plans(tables) if tables is not none else none -%}
  {%- do dbt_analyze._await_statistics() -%}
  {%- do dbt_analyze._ensure_storage() -%}
  {%- if plans is none -%}
    {%- set tables = [] -%}
    {%- for row in run_query('select distinct table_schema, table_name from '
                             ~ dbt_analyze._storage_relation('table_statistics') ~ ' order by 1, 2') -%}
      {%- do tables.append(row[0] ~ '.' ~ row[1]) -%}
    {%- endfor -%}
    {%- set plans = dbt_analyze._export_plans(tables) -%}
  {%- endif -%}
  {%- set document = dbt_analyze._document_format() -%}
  {%- do document.update({'exported_at': modules.datetime.datetime.utcnow().isoformat() ~ 'Z', 'tables': []}) -%}
  {%- for plan in plans -%}
    {%- set name = tables[loop.index0] -%}
    {%- if dbt_analyze._latest_run_id(plan.table) is none -%}
      {{ exceptions.raise_compiler_error('dbt_analyze: ' ~ name ~ ' has no statistics to export') }}
    {%- endif -%}
    {%- do document.tables.append(dbt_analyze._table_document(plan)) -%}
    {{ log('dbt_analyze: exported ' ~ name ~ ' (' ~ document.tables[-1].rows.partition_states | length
           ~ ' partition state(s))', info=True) }}
  {%- endfor -%}
  {%- set text = tojson(document) -%}
  {%- if path -%}
    {{ log('dbt_analyze: statistics of ' ~ tables | length ~ ' table(s) written to '
           ~ adapter.dbt_analyze_write_text(path, text), info=True) }}
  {%- else -%}
    {{ log(text, info=True) }}
  {%- endif -%}
  {{ return(document) }}
{% endmacro %}

{% macro _export_plans(tables) %}
  {%- set plans = [] -%}
  {%- for name in tables -%}
    {%- set run = dbt_analyze._new_run({'relation': name}) -%}
    {%- do plans.append(dbt_analyze._plan_target(dbt_analyze._build_request({'relation': name, 'dry_run': true}, run),
                                                 run)) -%}
  {%- endfor -%}
  {{ return(plans) }}
{% endmacro %}
