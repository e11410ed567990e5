{#- Post-hooks' statistics runs beside the build (python/src/dbt_analyze/background.py): on
    dbt-spark's in-process session, analyze() hands its run to the process's background workers
    and returns; readers of a table's statistics wait for its pending run first; the package's
    on-run-end hook waits for them all and fails the invocation with the runs that failed. -#}

{#- Whether this post-hook's run goes to the background: not when asked to wait (the hook's
    `wait`, else the var dbt_analyze_wait), nor on a connection without an in-process session
    (Thrift: each dbt thread is a Spark session of its own), nor without the library. -#}
{% macro _runs_beside_the_build(wait) %}
  {%- set wait = dbt_analyze._as_bool(wait if wait is not none else dbt_analyze._var('dbt_analyze_wait')) -%}
  {{ return(not wait and adapter.dbt_analyze_submit is defined and adapter.dbt_analyze_is_session()) }}
{% endmacro %}

{#- Hands a post-hook's run (_run_analyze's args) to the background workers, which prepare it at
    once and write it once no other run has come for dbt_analyze_background_linger_seconds (or a
    reader waits): runs that come close together are written together (_write_runs_together). -#}
{% macro _submit_run(relation, model_id, args) %}
  {#- A small table's run is mostly planning on the driver: more workers than cores only queue. -#}
  {%- set workers = dbt_analyze._var('dbt_analyze_background_workers')
                    or [4, adapter.dbt_analyze_parallelism() or 1] | min -%}
  {%- do adapter.dbt_analyze_submit(dbt_analyze._statistics_key(relation), model_id, args, workers | int,
                                    dbt_analyze._var('dbt_analyze_background_linger_seconds') | int) -%}
  {{ log('dbt_analyze: ' ~ relation.schema ~ '.' ~ relation.identifier
         ~ ': statistics are collected beside the build', info=True) }}
{% endmacro %}

{#- Waits for the pending background run of the relation's statistics (of every table: none). -#}
{% macro _await_statistics(relation=none) %}
  {%- if execute and adapter.dbt_analyze_await is defined -%}
    {%- do adapter.dbt_analyze_await(dbt_analyze._statistics_key(relation) if relation is not none else none) -%}
  {%- endif -%}
{% endmacro %}

{#- A table's key among the background runs: schema.name, lower case (Spark's names are). -#}
{% macro _statistics_key(relation) %}
  {{ return((relation.schema ~ '.' ~ relation.identifier) | lower) }}
{% endmacro %}

{#- The package's on-run-end hook (dbt runs it after the project's own): waits for every
    background run of the invocation; a run that failed fails the hook, naming its model and the
    error. Returns the hook's SQL: nothing, or a statement that raises the failures (a
    variable's default is evaluated as it is declared; a SELECT's dataframe never runs in a hook). -#}
{% macro _finish_background_runs() %}
  {%- if not execute or adapter.dbt_analyze_finish_background is not defined -%}{{ return('') }}{%- endif -%}
  {%- set failures = adapter.dbt_analyze_finish_background() -%}
  {%- if not failures -%}{{ return('') }}{%- endif -%}
  {%- set lines = [] -%}
  {%- for failure in failures -%}
    {%- do lines.append(failure.model ~ ': ' ~ failure.error) -%}
  {%- endfor -%}
  {%- set message = 'dbt_analyze: ' ~ failures | length ~ ' statistics run(s) failed beside the build (earlier'
                    ~ ' statistics of their tables are intact): ' ~ lines | join('; ') -%}
  {{ log(message, info=True) }}
  {{ return('declare or replace variable dbt_analyze_background_failures string default raise_error('
            ~ dbt_analyze._quote_literal(message) ~ ')') }}
{% endmacro %}
