{{ dbt_analyze._column_statistics_sql() }}
