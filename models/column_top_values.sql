{{ dbt_analyze._statistics_view_sql('column_top_values', dbt_analyze._current_rows_sql()) }}
