{#- Every package var, with its default, in one place. Users override them in their
    dbt_project.yml `vars:` block (names are package-prefixed). -#}
{% macro _defaults() %}
  {{ return({
    'dbt_analyze_schema': none,
    'dbt_analyze_hll_lg_k': 14,
    'dbt_analyze_kll_k': 16000,
    'dbt_analyze_top_k': 20,
    'dbt_analyze_histogram_bins': 254,
    'dbt_analyze_histogram': {'kind': 'equi_height'},
    'dbt_analyze_partition_histograms': false,
    'dbt_analyze_quantiles': [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99],
    'dbt_analyze_top_k_tracked': 2048,
    'dbt_analyze_top_k_tracked_max': 32768,
    'dbt_analyze_most_common_values': none,
    'dbt_analyze_sketches': 'full',
    'dbt_analyze_full': none,
    'dbt_analyze_publish': false,
    'dbt_analyze_sample_seed': 42,
    'dbt_analyze_sample_sketches': true,
    'dbt_analyze_sketch_sample_rows': 1000000,
    'dbt_analyze_propagation_accuracy': 'medium',
    'dbt_analyze_function_rules': none,
    'dbt_analyze_function_rules_file': none,
    'dbt_analyze_compaction_wait_seconds': 10,
    'dbt_analyze_wait': false,
    'dbt_analyze_background_workers': none,
    'dbt_analyze_background_linger_seconds': 12,
    'dbt_analyze_interpreted_scan_bytes': 1048576,
    'dbt_analyze_column_groups': 'auto',
    'dbt_analyze_column_groups_max': 10,
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

{#- The integer settings and the values they take: the sketches' own limits (Spark refuses others
    in the middle of a scan), or what makes sense. A setting whose default is none may stay none. -#}
{% macro _setting_ranges() %}
  {{ return({
    'dbt_analyze_hll_lg_k': [4, 21, "HLL's lgK"],
    'dbt_analyze_kll_k': [8, 65535, "KLL's k"],
    'dbt_analyze_top_k': [1, none, 'top values shown per column'],
    'dbt_analyze_top_k_tracked': [1, 1000000, 'items a top-k sketch tracks'],
    'dbt_analyze_top_k_tracked_max': [1, 1000000, "items a column's top-k sketch grows to"],
    'dbt_analyze_most_common_values': [1, none, 'most common values kept per column'],
    'dbt_analyze_histogram_bins': [1, none, 'bins per histogram'],
    'dbt_analyze_sample_seed': [none, none, 'the sampling seed'],
    'dbt_analyze_sketch_sample_rows': [1000, none, "rows a partition's distribution sketches see at least"],
    'dbt_analyze_compaction_wait_seconds': [0, 3600, 'how long compact_statistics waits for runs still planning'],
    'dbt_analyze_background_workers': [1, 64, 'threads that collect post-hooks\' statistics beside the build'],
    'dbt_analyze_background_linger_seconds': [0, 3600, 'how long prepared runs beside the build wait for more to write together'],
    'dbt_analyze_interpreted_scan_bytes': [0, none, 'bytes of files a write scans at most without generated code, in one task'],
    'dbt_analyze_column_groups_max': [0, 100, 'column groups chosen from the dbt graph per table'],
  }) }}
{% endmacro %}

{#- Fails the run when the top values shown or kept (vars) exceed the items a top-k sketch
    tracks (`tracked`, named `source`: the var or a request's top_k_tracked). -#}
{% macro _check_top_k_fits(tracked, source, run=none) %}
  {%- for name in ['dbt_analyze_top_k', 'dbt_analyze_most_common_values']
      if dbt_analyze._var(name) is not none and dbt_analyze._var(name) | int > tracked -%}
    {{ dbt_analyze._fail(run, 'var ' ~ name ~ ' (' ~ dbt_analyze._var(name) ~ ') must not exceed ' ~ source
                              ~ ' (' ~ tracked ~ '): a sketch reports only the items it tracks') }}
  {%- endfor -%}
{% endmacro %}

{#- Fails the run, naming the var, when a setting is out of its range (before anything is read). -#}
{% macro _check_settings(run=none) %}
  {%- set defaults = dbt_analyze._defaults() -%}
  {%- for name, limits in dbt_analyze._setting_ranges().items()
      if not (dbt_analyze._var(name) is none and defaults[name] is none) -%}
    {%- set low, high, meaning = limits -%}
    {%- set text = dbt_analyze._var(name) | string | trim -%}
    {%- set whole = (text[1:] if text.startswith('-') else text).isdigit() -%}
    {%- if not whole or (low is not none and text | int < low) or (high is not none and text | int > high) -%}
      {%- set bounds = (' from ' ~ low ~ ' to ' ~ high) if high is not none else (' of at least ' ~ low)
                       if low is not none else '' -%}
      {{ dbt_analyze._fail(run, 'var ' ~ name ~ ' (' ~ meaning ~ ') must be an integer' ~ bounds ~ ", got '" ~ text
                           ~ "'") }}
    {%- endif -%}
  {%- endfor -%}
  {%- do dbt_analyze._check_top_k_fits(dbt_analyze._var('dbt_analyze_top_k_tracked') | int,
                                        'dbt_analyze_top_k_tracked', run) -%}
  {%- set quantiles = dbt_analyze._var('dbt_analyze_quantiles') -%}
  {%- if quantiles is string or quantiles is not iterable or quantiles | reject('number') | list
         or quantiles | select('lt', 0) | list or quantiles | select('gt', 1) | list -%}
    {{ dbt_analyze._fail(run, 'var dbt_analyze_quantiles must be a list of numbers from 0 to 1, got ' ~ quantiles) }}
  {%- endif -%}
{% endmacro %}
