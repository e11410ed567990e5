{#- The current table-level statistics of one column as a dict, read at compile time, e.g.
    {% set amount = dbt_analyze.get_column_stats(ref('orders'), 'amount') %}
    Returns {} when the column has no statistics (or at parse time). -#}
{% macro get_column_stats(relation, column_name, partition_spec='') %}
  {{ return(adapter.dispatch('get_column_stats', 'dbt_analyze')(relation, column_name, partition_spec)) }}
{% endmacro %}

{% macro default__get_column_stats(relation, column_name, partition_spec) %}
  {%- if not execute -%}{{ return({}) }}{%- endif -%}
  {%- set rows = run_query('select * from ' ~ dbt_analyze._storage_relation('column_statistics')
                           ~ dbt_analyze._column_filter_sql(relation, column_name, partition_spec)) -%}
  {%- if not rows | length -%}{{ return({}) }}{%- endif -%}
  {%- set stats = {} -%}
  {%- for name in rows.column_names -%}{%- do stats.update({name: rows[0][name]}) -%}{%- endfor -%}
  {{ return(stats) }}
{% endmacro %}
