{{ dbt_analyze._analyze_runs_sql() }}
