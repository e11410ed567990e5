{{ dbt_analyze._column_group_view_sql(dbt_analyze._current_rows_sql()) }}
