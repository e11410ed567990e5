{{ dbt_analyze._statistics_view_sql('column_histograms', dbt_analyze._current_rows_sql()) }}
