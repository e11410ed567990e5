{#- The current table-level histogram bounds of a column as a list of strings (num_bins + 1
    values, smallest first), read at compile time; [] when there is none. E.g. bucket edges:
    {% set edges = dbt_analyze.histogram_bounds(ref('orders'), 'amount') %} -#}
{% macro histogram_bounds(relation, column_name, partition_spec='') %}
  {{ return(adapter.dispatch('histogram_bounds', 'dbt_analyze')(relation, column_name, partition_spec)) }}
{% endmacro %}

{% macro default__histogram_bounds(relation, column_name, partition_spec) %}
  {%- if not execute -%}{{ return([]) }}{%- endif -%}
  {%- do dbt_analyze._await_statistics(relation) -%}
  {%- do dbt_analyze._refresh_current_view('column_histograms') -%}
  {%- set rows = run_query('select bin, lower_bound, upper_bound from '
                           ~ dbt_analyze._storage_relation('column_histograms')
                           ~ dbt_analyze._column_filter_sql(relation, column_name, partition_spec)
                           ~ ' order by bin') -%}
  {%- if not rows | length -%}{{ return([]) }}{%- endif -%}
  {{ return([rows[0][1]] + rows.columns[2].values() | list) }}
{% endmacro %}

{#- WHERE clause selecting one column of one relation in a statistics table. -#}
{% macro _column_filter_sql(relation, column_name, partition_spec='') %}
  {{ return(' where table_schema = ' ~ dbt_analyze._quote_literal(relation.schema | lower)
            ~ ' and table_name = ' ~ dbt_analyze._quote_literal(relation.identifier | lower)
            ~ ' and lower(column_name) = ' ~ dbt_analyze._quote_literal(column_name | lower)
            ~ ' and partition_spec = ' ~ dbt_analyze._quote_literal(partition_spec)) }}
{% endmacro %}
