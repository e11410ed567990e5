{#- The current most common values of a column as a list of {value, frequency}, most common first,
    read at compile time; [] when there are none. E.g. salting the hottest join keys:
    {% set hot = dbt_analyze.top_values(ref('orders'), 'customer_id', limit=5) %} -#}
{% macro top_values(relation, column_name, limit=none, partition_spec='') %}
  {{ return(adapter.dispatch('top_values', 'dbt_analyze')(relation, column_name, limit, partition_spec)) }}
{% endmacro %}

{% macro default__top_values(relation, column_name, limit, partition_spec) %}
  {%- if not execute -%}{{ return([]) }}{%- endif -%}
  {%- do dbt_analyze._await_statistics(relation) -%}
  {%- do dbt_analyze._refresh_current_view('column_top_values') -%}
  {%- set rows = run_query('select value, frequency from ' ~ dbt_analyze._storage_relation('column_top_values')
                           ~ dbt_analyze._column_filter_sql(relation, column_name, partition_spec) ~ ' order by rank'
                           ~ (' limit ' ~ (limit | int) if limit else '')) -%}
  {%- set values = [] -%}
  {%- for row in rows -%}{%- do values.append({'value': row[0], 'frequency': row[1]}) -%}{%- endfor -%}
  {{ return(values) }}
{% endmacro %}
