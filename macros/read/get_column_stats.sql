{#- The current table-level statistics of one column as a dict (counts as integers, avg_len, mean
    and stddev as floats), read at compile time, e.g.
    {% set amount = dbt_analyze.get_column_stats(ref('orders'), 'amount') %}
    Returns {} when the column has no statistics (or at parse time). -#}
{% macro get_column_stats(relation, column_name, partition_spec='') %}
  {{ return(adapter.dispatch('get_column_stats', 'dbt_analyze')(relation, column_name, partition_spec)) }}
{% endmacro %}

{% macro default__get_column_stats(relation, column_name, partition_spec) %}
  {%- if not execute -%}{{ return({}) }}{%- endif -%}
  {%- do dbt_analyze._await_statistics(relation) -%}
  {%- do dbt_analyze._refresh_current_view('column_statistics') -%}
  {%- set rows = run_query('select * from ' ~ dbt_analyze._storage_relation('column_statistics')
                           ~ dbt_analyze._column_filter_sql(relation, column_name, partition_spec)) -%}
  {%- if not rows | length -%}{{ return({}) }}{%- endif -%}
  {%- set stats = {} -%}
  {#- dbt reads doubles (avg_len, mean, stddev) as Decimal, which arithmetic with a float refuses
      ({{ amount.mean + 2.5 * amount.stddev }}); they are given as floats. -#}
  {%- for name in rows.column_names -%}
    {%- set value = rows[0][name] -%}
    {%- do stats.update({name: value | float if value is number and value is not integer and value is not boolean
                         else value}) -%}
  {%- endfor -%}
  {{ return(stats) }}
{% endmacro %}
