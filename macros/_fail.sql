{#- Raise a clear error; unless this is a dry run, record the run as failed first. Validation
    happens before any statistic is written, so a failed run changes nothing current. -#}
{% macro _fail(run, message, table=none) %}
  {%- if run and not run.dry_run and execute -%}
    {%- do dbt_analyze._ensure_storage() -%}
    {%- do dbt_analyze._write_event(run, 'failed', table, {'error': message}) -%}
  {%- endif -%}
  {{ exceptions.raise_compiler_error('dbt_analyze: ' ~ message) }}
{% endmacro %}
