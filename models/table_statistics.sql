{{ dbt_analyze._current_rows_sql('table_statistics_history') }}
