{{ dbt_analyze._latest_estimates_sql() }}
