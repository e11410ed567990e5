{{ dbt_analyze._current_rows_sql('column_statistics_history') }}
