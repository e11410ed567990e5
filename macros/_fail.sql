{#- Raise a clear error. A request refused by its own checks (arguments, vars, the statement's
    grammar: _build_request) sends nothing and leaves nothing behind. A run refused later (an
    unknown table, column or partition; a view) is recorded as failed where the statistics
    storage already exists; it never creates the storage for it. Validation happens before any
    statistic is written, so a failed run changes nothing current. -#}
{% macro _fail(run, message, table=none) %}
  {%- if run and run.get('request_checked') and not run.dry_run and execute
         and (dbt_analyze._storage_properties() or {}).get('dbt_analyze.storage_version')
             == dbt_analyze._storage_version() -%}
    {%- do dbt_analyze._write_event(run, 'failed', table, {'error': message}) -%}
  {%- endif -%}
  {{ exceptions.raise_compiler_error('dbt_analyze: ' ~ message) }}
{% endmacro %}
