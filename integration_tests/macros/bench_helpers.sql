{#- The benchmark's side-by-side timing (bench/run_cost.py): in one dbt process, so in one warm
    Spark session, each round runs every step once, in order, and times it from here: a run of the
    package as a post-hook runs it (`analyze`: the whole run, every statement), a statement
    (`sql`: Spark's own ANALYZE), or statements one after another (`sqls`: Spark's floor under a
    run, bench/spark_floor.py). A step's `before` statement (a new partition) runs untimed. Logs
    BENCH: {step: {ms: [...], statements: [...]}}. -#}
{% macro bench_interleaved(steps, rounds=3) %}
  {%- set results = {} -%}
  {%- for round in range(rounds) -%}
    {%- for step in steps -%}
      {%- if step.get('before') -%}{%- do run_query(step.before) -%}{%- endif -%}
      {%- set sent = dbt_analyze._statements_sent() -%}
      {%- set started = modules.datetime.datetime.utcnow() -%}
      {%- if step.get('analyze') -%}
        {%- do dbt_analyze._run_analyze(step.analyze) -%}
      {%- elif step.get('sqls') -%}
        {%- for sql in step.sqls -%}{%- do run_query(sql) -%}{%- endfor -%}
      {%- else -%}
        {%- do run_query(step.sql) -%}
      {%- endif -%}
      {%- set entry = results.setdefault(step.name, {'ms': [], 'statements': []}) -%}
      {%- do entry.ms.append(dbt_analyze._elapsed_ms(started)) -%}
      {%- do entry.statements.append(dbt_analyze._statements_sent() - sent) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ log('BENCH: ' ~ tojson(results), info=True) }}
{% endmacro %}
