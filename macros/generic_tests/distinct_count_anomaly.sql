{#- dbt_analyze data test, reading the model's statistics, never its data (macros/checks/_statistics_test.sql).
    The column's distinct count in the latest run (over: runs) or the newest partition (over: partitions) is in line
    with the `history` before it: |value - median| / (1.4826 MAD) at most `sensitivity`. -#}
{% test distinct_count_anomaly(model, column_name, over='runs', history=14, sensitivity=3) %}
  {{ return(adapter.dispatch('test_distinct_count_anomaly', 'dbt_analyze')(model, column_name, over, history,
      sensitivity)) }}
{% endtest %}

{% macro default__test_distinct_count_anomaly(model, column_name, over, history, sensitivity) %}
  {{ return(dbt_analyze._test_anomaly('distinct_count_anomaly', model, 'distinct_count', column_name, over, history,
                                      sensitivity)) }}
{% endmacro %}
