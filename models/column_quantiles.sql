{{ dbt_analyze._statistics_view_sql('column_quantiles', dbt_analyze._current_rows_sql()) }}
