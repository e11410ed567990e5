{#- The sketch functions differ by engine: hll_sketch_agg since Spark 3.5 (Databricks Runtime
    18). Asked once per dbt process (SHOW FUNCTIONS, no data read); a request for full sketches on
    an engine without KLL or top-k runs with basic sketches and says so; without HLL it stops. -#}
{% macro _engine_sketch_functions() %}
  {%- if adapter.dbt_analyze_once is defined -%}
    {{ return(adapter.dbt_analyze_once('sketch_functions', dbt_analyze._query_sketch_functions)) }}
  {%- endif -%}
  {{ return(dbt_analyze._query_sketch_functions()) }}
{% endmacro %}

{% macro _query_sketch_functions() %}
  {%- set wanted = ['hll_sketch_agg', 'kll_sketch_agg_double', 'approx_top_k_accumulate'] -%}
  {%- set found = run_query("show functions like '" ~ wanted | join('|') ~ "'").columns[0].values() | map('lower')
                  | list -%}
  {%- set available = [] -%}
  {%- for name in wanted -%}
    {%- if name in found or ('system.builtin.' ~ name) in found -%}{%- do available.append(name) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(available) }}
{% endmacro %}

{#- Spark keeps 100 generated classes by default (spark.sql.codegen.cache.maxEntries, a static
    setting). A run generates about 150, so each run evicts the previous run's classes and compiles
    them again (docs/decisions/compiled-classes.md). Said once per dbt process when the engine
    keeps fewer than 1,000. -#}
{% macro _hint_codegen_cache() %}
  {%- if adapter.dbt_analyze_first_time is defined and adapter.dbt_analyze_first_time('codegen_cache_hint') -%}
    {%- set kept = run_query('set spark.sql.codegen.cache.maxEntries').columns[1].values() | first -%}
    {%- if (kept | string).isdigit() and kept | int < 1000 -%}
      {{ log('dbt_analyze: hint: this Spark keeps ' ~ kept
             ~ ' compiled query classes (spark.sql.codegen.cache.maxEntries); '
             ~ 'each analysis generates about 150, so every run compiles its classes again. Set it to 1000 when the session '
             ~ "starts (profiles.yml server_side_parameters, or the Thrift server's --conf): runs take about a fifth less", info=True) }}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}

{% macro _fit_to_engine(request, run, available=none) %}
  {%- if available is none -%}{%- do dbt_analyze._hint_codegen_cache() -%}{%- endif -%}
  {%- set available = dbt_analyze._engine_sketch_functions() if available is none else available -%}
  {%- if 'hll_sketch_agg' not in available -%}
    {{ dbt_analyze._fail(run,
                         'this engine has no hll_sketch_agg (Spark 3.5+, Databricks Runtime 13.3+), which distinct counts need') }}
  {%- endif -%}
  {%- set missing = ['kll_sketch_agg_double', 'approx_top_k_accumulate'] | reject('in', available) | list -%}
  {%- if request.sketches == 'full' and missing -%}
    {{ log('dbt_analyze: this engine has no ' ~ missing | join(' or ') ~ ' (Spark 4.1+, Databricks Runtime 18+): '
           ~ 'quantiles, histograms, top values and string min/max are skipped (sketches: basic)', info=True) }}
    {%- do request.update({'sketches': 'basic'}) -%}
  {%- endif -%}
  {{ return(request) }}
{% endmacro %}
