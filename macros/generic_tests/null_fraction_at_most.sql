{#- dbt_analyze data test, reading the model's statistics, never its data (macros/checks/_statistics_test.sql).
    The column's share of NULL rows (0 to 1) is at most max. -#}
{% test null_fraction_at_most(model, column_name, max) %}
  {{ return(adapter.dispatch('test_null_fraction_at_most', 'dbt_analyze')(model, column_name, max)) }}
{% endtest %}

{% macro default__test_null_fraction_at_most(model, column_name, max) %}
  {{ return(dbt_analyze._test_band('null_fraction_at_most', model, 'null_fraction', column_name, none, max)) }}
{% endmacro %}
