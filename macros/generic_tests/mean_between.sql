{#- dbt_analyze data test, reading the model's statistics, never its data (macros/checks/_statistics_test.sql).
    The column's mean is within [min, max]. -#}
{% test mean_between(model, column_name, min=none, max=none) %}
  {{ return(adapter.dispatch('test_mean_between', 'dbt_analyze')(model, column_name, min, max)) }}
{% endtest %}

{% macro default__test_mean_between(model, column_name, min, max) %}
  {{ return(dbt_analyze._test_band('mean_between', model, 'mean', column_name, min, max)) }}
{% endmacro %}
