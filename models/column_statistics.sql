{{ dbt_analyze._statistics_view_sql('column_statistics', dbt_analyze._current_rows_sql()) }}
