{#- dbt_analyze data test, reading the model's statistics, never its data (macros/checks/_statistics_test.sql).
    The column's distinct count (HLL estimate) is within [min, max]. -#}
{% test distinct_count_between(model, column_name, min=none, max=none) %}
  {{ return(adapter.dispatch('test_distinct_count_between', 'dbt_analyze')(model, column_name, min, max)) }}
{% endtest %}

{% macro default__test_distinct_count_between(model, column_name, min, max) %}
  {{ return(dbt_analyze._test_band('distinct_count_between', model, 'distinct_count', column_name, min, max)) }}
{% endmacro %}
