{#- dbt_analyze data test, reading the model's statistics, never its data (macros/checks/_statistics_test.sql).
    The column's share of NULL rows in the latest run (over: runs) or the newest partition (over: partitions) is in line
    with the `history` before it: |value - median| / (1.4826 MAD) at most `sensitivity`. -#}
{% test null_fraction_anomaly(model, column_name, over='runs', history=14, sensitivity=3) %}
  {{ return(adapter.dispatch('test_null_fraction_anomaly', 'dbt_analyze')(model, column_name, over, history,
      sensitivity)) }}
{% endtest %}

{% macro default__test_null_fraction_anomaly(model, column_name, over, history, sensitivity) %}
  {{ return(dbt_analyze._test_anomaly('null_fraction_anomaly', model, 'null_fraction', column_name, over, history,
                                      sensitivity)) }}
{% endmacro %}
