{#- The sketch functions differ by engine: hll_sketch_agg since Spark 3.5 (Databricks Runtime
    13.3), kll_sketch_agg_double and approx_top_k_accumulate since Spark 4.1 (Databricks Runtime
    18). Asked once per run (SHOW FUNCTIONS, no data read); a request for full sketches on an
    engine without KLL or top-k runs with basic sketches and says so; without HLL it stops. -#}
{% macro _engine_sketch_functions() %}
  {%- set wanted = ['hll_sketch_agg', 'kll_sketch_agg_double', 'approx_top_k_accumulate'] -%}
  {%- set found = run_query("show functions like '" ~ wanted | join('|') ~ "'").columns[0].values() | map('lower') | list -%}
  {%- set available = [] -%}
  {%- for name in wanted -%}
    {%- if name in found or ('system.builtin.' ~ name) in found -%}{%- do available.append(name) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(available) }}
{% endmacro %}

{% macro _fit_to_engine(request, run, available=none) %}
  {%- set available = dbt_analyze._engine_sketch_functions() if available is none else available -%}
  {%- if 'hll_sketch_agg' not in available -%}
    {{ dbt_analyze._fail(run, 'this engine has no hll_sketch_agg (Spark 3.5+, Databricks Runtime 13.3+), which distinct counts need') }}
  {%- endif -%}
  {%- set missing = ['kll_sketch_agg_double', 'approx_top_k_accumulate'] | reject('in', available) | list -%}
  {%- if request.sketches == 'full' and missing -%}
    {{ log('dbt_analyze: this engine has no ' ~ missing | join(' or ') ~ ' (Spark 4.1+, Databricks Runtime 18+): '
           ~ 'quantiles, histograms, top values and string min/max are skipped (sketches: basic)', info=True) }}
    {%- do request.update({'sketches': 'basic'}) -%}
  {%- endif -%}
  {{ return(request) }}
{% endmacro %}
