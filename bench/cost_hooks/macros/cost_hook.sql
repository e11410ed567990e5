{#- The post-hook the var cost_hook names: none, Spark's own ANALYZE, analyze() (beside the build), analyze(wait=true),
    or analyze(sketches='basic'). -#}
{% macro cost_hook() %}
  {%- set hook = var('cost_hook') -%}
  {%- if hook == 'spark' -%}
    analyze table {{ this }} compute statistics for all columns
  {%- elif hook == 'ours' -%}
    {{ dbt_analyze.analyze() }}
  {%- elif hook == 'wait' -%}
    {{ dbt_analyze.analyze(wait=true) }}
  {%- elif hook == 'least' -%}
    {{ cost_hooks.floor_hook() }}
  {%- elif hook == 'scan' -%}
    {{ cost_hooks.floor_hook(scan_only=true) }}
  {%- elif hook == 'basic' -%}
    {{ dbt_analyze.analyze(sketches='basic') }}
  {%- endif -%}
{% endmacro %}
