{#- Statements that do not depend on each other (each writes its own table, or only reads), all
    at once where the connection allows it (dbt-spark's session, through the library), else one
    after another. Returns each statement's rows, in the statements' order. With missing_paths (file
    listings, see _run_listing), a statement that Spark stops at a path that does not exist gives
    {missing_path} instead of rows (through the library, on any connection). -#}
{% macro _run_at_once(statements, missing_paths=false, settings=[]) %}
  {%- if not statements -%}{{ return([]) }}{%- endif -%}
  {%- set results = adapter.dbt_analyze_run_concurrently(statements, missing_paths, settings)
                    if (statements | length > 1 or missing_paths or settings | select | list)
                       and adapter.dbt_analyze_run_concurrently is defined
                    else false -%}
  {%- if results is sameas false -%}
    {%- set results = [] -%}
    {%- for sql in statements -%}{%- do results.append(run_query(sql).rows) -%}{%- endfor -%}
  {%- endif -%}
  {{ return(results) }}
{% endmacro %}

{#- The statistics write: a run's one INSERT. Its shuffles carry little (partial aggregates keyed
    by partition, states keyed by column), so on session connections it runs without adaptive
    execution, which makes a job of each of its stages and plans again between them, and with a
    shuffle partition per core (docs/decisions/statistics-write-settings.md). Over
    Thrift the server's settings hold. A session runs the SELECT in two halves where select.in_two
    (the merged groups held in memory, then the rows with their arrays derived from them): Spark
    analyzes each half against a smaller plan (docs/decisions/write-in-two-halves.md). Returns
    what the run itself stored ([rows, bytes, sketch_bytes, truncated]: _own_numbers) as Spark took it while
    writing (session connections), else none (read it then). -#}
{% macro _run_statistics_write(select, interpreted=false) %}
  {%- set settings = dbt_analyze._statistics_write_settings(interpreted) -%}
  {%- set own = adapter.dbt_analyze_insert_observed(dbt_analyze._storage_relation('statistics_history'), select,
                                                    dict(dbt_analyze._own_numbers()), settings)
                if adapter.dbt_analyze_insert_observed is defined else none -%}
  {%- if own is not none -%}{{ return(dbt_analyze._written_numbers(own)) }}{%- endif -%}
  {%- do dbt_analyze._run_at_once([dbt_analyze._statistics_insert_sql(select)], settings=[settings]) -%}
  {{ return(none) }}
{% endmacro %}

{#- What a write observed of a run's rows (_own_numbers' measures, each name followed by `suffix`:
    a run's among several), as _run_statistics_write returns it; none when Spark had not handed
    them over. -#}
{% macro _written_numbers(observed, suffix='') %}
  {%- if not observed -%}{{ return(none) }}{%- endif -%}
  {{ return([observed['rows' ~ suffix] | int, observed['bytes' ~ suffix] | int,
             observed['sketch_bytes' ~ suffix] | int, observed['truncated' ~ suffix]]) }}
{% endmacro %}

{#- The settings of a statistics write (_run_statistics_write). -#}
{% macro _statistics_write_settings(interpreted=false) %}
  {%- set cores = adapter.dbt_analyze_parallelism() if adapter.dbt_analyze_parallelism is defined else none -%}
  {%- set settings = {} -%}
  {%- if cores -%}
    {%- do settings.update(dbt_analyze._partition_filter_settings()) -%}
    {%- do settings.update({'spark.sql.adaptive.enabled': 'false', 'spark.sql.shuffle.partitions': cores}) -%}
  {%- endif -%}
  {%- if interpreted -%}
    {%- do settings.update({'spark.sql.codegen.wholeStage': 'false', 'spark.sql.codegen.factoryMode': 'NO_CODEGEN'}) -%}
  {%- endif -%}
  {{ return(settings) }}
{% endmacro %}

{#- Whether a run's write goes without generated code: when it scans at most
    dbt_analyze_interpreted_scan_bytes of files (1 MiB). Compiling a write's classes (Janino, and the JIT behind it in the fresh process of each `dbt
    build`) costs more than a small scan saves by them; at 1 MiB of Parquet (about 200,000 narrow
    rows) a warm session takes the same time either way, at 4 MiB three times as long
    interpreted (docs/decisions/interpreted-small-scans.md). Not with collated strings: the
    minimum of a UNICODE_CI_AI column came out wrong interpreted, once, in the test suite. -#}
{% macro _runs_interpreted(plan, to_scan) %}
  {{ return(dbt_analyze._scans_small(plan, to_scan) and not dbt_analyze._scans_collated(plan)) }}
{% endmacro %}

{#- Whether a run's scan reads at most dbt_analyze_interpreted_scan_bytes of files: a small scan,
    whose time is planning and job start, not its rows. -#}
{% macro _scans_small(plan, to_scan) %}
  {%- set scanned = namespace(bytes=0) -%}
  {%- for spec in to_scan -%}
    {%- set scanned.bytes = scanned.bytes + (plan.listing.get(spec) or {}).get('size_bytes', 0) -%}
  {%- endfor -%}
  {{ return(scanned.bytes <= dbt_analyze._var('dbt_analyze_interpreted_scan_bytes') | int) }}
{% endmacro %}

{#- Whether a run's scan reads a collated string column (which keeps generated code: _runs_interpreted). -#}
{% macro _scans_collated(plan) %}
  {%- set found = namespace(collated=false) -%}
  {%- for column in plan.scan_columns if ' collate ' in column.data_type | lower -%}
    {%- set found.collated = true -%}
  {%- endfor -%}
  {{ return(found.collated) }}
{% endmacro %}

{#- Settings of a statement that filters on the partition columns' values: a metastore that cannot
    take the filter (Derby's, when it falls back from its direct SQL to JDO, which filters integers
    and dates only by a setting of its own) returns every partition instead of failing the run. -#}
{% macro _partition_filter_settings() %}
  {{ return({'spark.sql.hive.metastorePartitionPruningFallbackOnException': 'true'}) }}
{% endmacro %}

{% macro _elapsed_ms(since) %}
  {%- set delta = modules.datetime.datetime.utcnow() - since -%}
  {{ return((delta.total_seconds() * 1000) | round | int) }}
{% endmacro %}

{#- Spark statements this dbt thread has sent so far (through the library), else none. -#}
{% macro _statements_sent() %}
  {{ return(adapter.dbt_analyze_statements() if adapter.dbt_analyze_statements is defined else none) }}
{% endmacro %}
