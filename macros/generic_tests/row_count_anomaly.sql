{#- dbt_analyze data test, reading the model's statistics, never its data (macros/checks/_statistics_test.sql).
    The model's row count in the latest run (over: runs) or the newest partition (over: partitions) is in line
    with the `history` before it: |value - median| / (1.4826 MAD) at most `sensitivity`. -#}
{% test row_count_anomaly(model, over='runs', history=14, sensitivity=3) %}
  {{ return(adapter.dispatch('test_row_count_anomaly', 'dbt_analyze')(model, over, history, sensitivity)) }}
{% endtest %}

{% macro default__test_row_count_anomaly(model, over, history, sensitivity) %}
  {{ return(dbt_analyze._test_anomaly('row_count_anomaly', model, 'row_count', none, over, history, sensitivity)) }}
{% endmacro %}
