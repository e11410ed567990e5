{#- dbt_analyze data test, reading the model's statistics, never its data (macros/checks/_statistics_test.sql).
    The model's row count is within [min, max] (either may be left out). -#}
{% test row_count_between(model, min=none, max=none) %}
  {{ return(adapter.dispatch('test_row_count_between', 'dbt_analyze')(model, min, max)) }}
{% endtest %}

{% macro default__test_row_count_between(model, min, max) %}
  {{ return(dbt_analyze._test_band('row_count_between', model, 'row_count', none, min, max)) }}
{% endmacro %}
