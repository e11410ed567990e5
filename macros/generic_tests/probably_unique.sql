{#- dbt_analyze data test, reading the model's statistics, never its data (macros/checks/_statistics_test.sql).
    The column's distinct count equals its non-null rows within the HLL sketch's error (2.4% at the default lgK):
    for an exact check, use dbt's unique test, which scans the data. -#}
{% test probably_unique(model, column_name) %}
  {{ return(adapter.dispatch('test_probably_unique', 'dbt_analyze')(model, column_name)) }}
{% endtest %}

{% macro default__test_probably_unique(model, column_name) %}
  {{ return(dbt_analyze._test_probably_unique('probably_unique', model, column_name)) }}
{% endmacro %}
