{#- Statements that do not depend on each other (each writes its own table, or only reads), all
    at once where the connection allows it (dbt-spark's session, through the library), else one
    after another. Returns each statement's rows, in the statements' order. With missing_paths (file
    listings, see _run_listing), a statement that Spark stops at a path that does not exist gives
    {missing_path} instead of rows (through the library, on any connection). -#}
{% macro _run_at_once(statements, missing_paths=false, settings=[]) %}
  {%- if not statements -%}{{ return([]) }}{%- endif -%}
  {%- set results = adapter.dbt_analyze_run_concurrently(statements, missing_paths, settings)
                    if (statements | length > 1 or missing_paths) and adapter.dbt_analyze_run_concurrently is defined
                    else false -%}
  {%- if results is sameas false -%}
    {%- set results = [] -%}
    {%- for sql in statements -%}{%- do results.append(run_query(sql).rows) -%}{%- endfor -%}
  {%- endif -%}
  {{ return(results) }}
{% endmacro %}

{% macro _elapsed_ms(since) %}
  {%- set delta = modules.datetime.datetime.utcnow() - since -%}
  {{ return((delta.total_seconds() * 1000) | round | int) }}
{% endmacro %}

{#- Spark statements this dbt thread has sent so far (through the library), else none. -#}
{% macro _statements_sent() %}
  {{ return(adapter.dbt_analyze_statements() if adapter.dbt_analyze_statements is defined else none) }}
{% endmacro %}
