{#- Every package var, with its default, in one place. Users override them in their
    dbt_project.yml `vars:` block (names are package-prefixed). -#}
{% macro _defaults() %}
  {{ return({
    'dbt_analyze_schema': none,
    'dbt_analyze_hll_lg_k': 14,
    'dbt_analyze_kll_k': 4000,
    'dbt_analyze_top_k': 20,
    'dbt_analyze_histogram_bins': 254,
    'dbt_analyze_histogram': {'kind': 'equi_height'},
    'dbt_analyze_partition_histograms': false,
    'dbt_analyze_quantiles': [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99],
    'dbt_analyze_top_k_tracked': 256,
    'dbt_analyze_sketches': 'full',
    'dbt_analyze_full': false,
    'dbt_analyze_publish': false,
    'dbt_analyze_sample_seed': 42,
    'dbt_analyze_propagation_accuracy': 'medium',
    'dbt_analyze_function_rules': none,
    'dbt_analyze_function_rules_file': none,
    'dbt_analyze_compaction_wait_seconds': 10,
  }) }}
{% endmacro %}

{% macro _var(name) %}
  {%- set defaults = dbt_analyze._defaults() -%}
  {%- if name not in defaults -%}
    {{ exceptions.raise_compiler_error("dbt_analyze: unknown setting '" ~ name ~ "'") }}
  {%- endif -%}
  {{ return(var(name, defaults[name])) }}
{% endmacro %}

{#- The schema that holds the statistics tables: the var, else <target.schema>_stats. -#}
{% macro _stats_schema() %}
  {{ return(dbt_analyze._var('dbt_analyze_schema') or (target.schema ~ '_stats')) }}
{% endmacro %}

{#- The package's own models go to the statistics schema (dbt applies a package's
    generate_schema_name to that package's nodes only). -#}
{% macro generate_schema_name(custom_schema_name, node) %}
  {{ return(dbt_analyze._stats_schema()) }}
{% endmacro %}
