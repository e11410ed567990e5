{{ dbt_analyze._table_staleness_sql() }}
