{#- dbt_analyze data test, reading the model's statistics, never its data (macros/checks/_statistics_test.sql).
    The column's stored min and max lie within [min, max], as values of its type (numbers, dates, timestamps, text). -#}
{% test values_between(model, column_name, min=none, max=none) %}
  {{ return(adapter.dispatch('test_values_between', 'dbt_analyze')(model, column_name, min, max)) }}
{% endtest %}

{% macro default__test_values_between(model, column_name, min, max) %}
  {{ return(dbt_analyze._test_values_between('values_between', model, column_name, min, max)) }}
{% endmacro %}
