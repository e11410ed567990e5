{{ dbt_analyze._current_rows_sql('column_top_values_history') }}
