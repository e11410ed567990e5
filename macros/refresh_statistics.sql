{#-
  Pre-hook: {{ dbt_analyze.refresh_statistics() }} on a SQL model that selects from the
  statistics tables (ref('column_statistics'), ...) in a build over a Spark Thrift Server.

  Each Thrift connection is a Spark session of its own, which keeps the file lists of the tables
  it has read: statistics that another dbt thread's post-hook wrote since are not in them. The
  package's own operations and read macros (get_column_stats, histogram_bounds, top_values)
  refresh what they read; a model's own SQL needs this. On dbt-spark's in-process session (one
  Spark session for all dbt threads) it waits for the statistics runs still going on beside the
  build, so that the model reads this build's statistics.
-#}
{% macro refresh_statistics() %}
  {{ return(adapter.dispatch('refresh_statistics', 'dbt_analyze')()) }}
{% endmacro %}

{% macro default__refresh_statistics() %}
  {%- if execute -%}
    {%- do dbt_analyze._await_statistics() -%}
    {%- do dbt_analyze._refresh_storage() -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}
