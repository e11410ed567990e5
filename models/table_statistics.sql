{{ dbt_analyze._table_statistics_sql() }}
