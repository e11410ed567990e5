{#-
  Post-hook: {{ dbt_analyze.analyze() }} analyzes the model just built (`this`), with options from
  keyword arguments, else the model's config `analyze: {...}` (or meta), else the package vars.
  Column statistics of all columns by default; a full run for table models and seeds, whose data
  dbt has just replaced. Views and ephemeral models are skipped with a log line.
  On dbt-spark's in-process session the run goes beside the build (macros/_background.sql): the
  hook returns at once, readers of the model's statistics wait for it, and the invocation waits
  for every run at its end. wait=true (or `analyze: {wait: true}`, or the var dbt_analyze_wait)
  runs it in the hook, as over Thrift.
-#}
{% macro analyze(columns=none, partition=none, full=none, sketches=none, noscan=none, publish=none,
                 top_k_tracked=none, wait=none, sample_sketches=none, column_groups=none) %}
  {{ return(adapter.dispatch('analyze', 'dbt_analyze')(columns, partition, full, sketches, noscan, publish,
                                                       top_k_tracked, wait, sample_sketches, column_groups)) }}
{% endmacro %}

{% macro default__analyze(columns, partition, full, sketches, noscan, publish, top_k_tracked=none, wait=none,
                          sample_sketches=none, column_groups=none) %}
  {%- if not execute or model is not defined or this is none -%}{{ return('') }}{%- endif -%}
  {%- set materialized = config.get('materialized') -%}
  {%- if materialized in ('view', 'ephemeral', 'materialized_view')
      or model.resource_type not in ('model', 'seed', 'snapshot') -%}
    {{ log('dbt_analyze: skipping ' ~ this ~ ' (' ~ (materialized or model.resource_type)
           ~ ': no data of its own to analyze)', info=True) }}
    {{ return('') }}
  {%- endif -%}
  {#- Column groups: those the models reading this one use together, unless the var or config says
      otherwise (_auto_column_groups). -#}
  {%- set options = {'columns': 'all', 'column_groups': dbt_analyze._var('dbt_analyze_column_groups')} -%}
  {%- do options.update(config.get('meta', {}).get('analyze', {}) or {}) -%}
  {%- do options.update(config.get('analyze', {}) or {}) -%}
  {%- for key, value in {'columns': columns, 'partition': partition, 'full': full, 'sketches': sketches,
                         'noscan': noscan, 'publish': publish, 'top_k_tracked': top_k_tracked,
                         'sample_sketches': sample_sketches, 'column_groups': column_groups}.items()
                         if value is not none -%}
    {%- do options.update({key: value}) -%}
  {%- endfor -%}
  {#- dbt has just replaced a table model's or seed's data whole: every file is new, so the run
      rescans it all, and a full run need not read the old states to find out (_run_analyze). -#}
  {%- if 'full' not in options and dbt_analyze._var('dbt_analyze_full') is none
        and (materialized == 'table' or model.resource_type == 'seed') -%}
    {%- do options.update({'full': true}) -%}
  {%- endif -%}
  {%- do options.update({'relation': this}) -%}
  {#- wait is the hook's, not the run's: the keyword argument, else the model's config. -#}
  {%- set configured_wait = options.pop('wait', none) -%}
  {%- set wait = wait if wait is not none else configured_wait -%}
  {%- if dbt_analyze._runs_beside_the_build(wait) -%}
    {#- The request's own checks here, so that a bad option fails the model, not the build's end. -#}
    {%- do dbt_analyze._build_request(options) -%}
    {%- do dbt_analyze._submit_run(this, model.unique_id, options) -%}
  {%- else -%}
    {%- do dbt_analyze._run_analyze(options) -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}
