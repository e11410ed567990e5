{#-
  dbt run-operation analyze_table --args '{statement: "ANALYZE TABLE db.t COMPUTE STATISTICS FOR ALL COLUMNS"}'
  dbt run-operation analyze_table --args '{relation: db.t, partition: {dt: "2024-01-01"}, columns: all}'
  dbt run-operation analyze_table --args '{statement: "ANALYZE TABLES IN db COMPUTE STATISTICS"}'   (or schema: db)

  Collects statistics with one scan of the selected (new or changed) partitions, merges them into
  table statistics and prints them. Options: statement | relation | schema, partition, columns,
  noscan, full, dry_run, sketches (full | basic), sample, publish (into Spark's catalog),
  top_k_tracked (items each top-k sketch tracks; default, per column: the var's, or more as the
  column's states track or the table's runs learned: _choose_scan), sample_sketches (false: the
  KLL and top-k sketches see every row, whatever the table's size: _sketch_rate).
-#}
{% macro analyze_table(statement=none, relation=none, partition=none, columns=none, noscan=none, full=none,
                       dry_run=none, sketches=none) %}
  {#- Unknown keyword arguments reach the request check, which names them. -#}
  {{ return(adapter.dispatch('analyze_table', 'dbt_analyze')(statement, relation, partition, columns, noscan, full,
                                                             dry_run, sketches, kwargs)) }}
{% endmacro %}

{% macro default__analyze_table(statement, relation, partition, columns, noscan, full, dry_run, sketches, unknown={}) %}
  {#- Nothing while dbt parses (a hook is rendered then too): run_query has no results. -#}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- set args = dict(unknown) -%}
  {%- for key, value in {'statement': statement, 'relation': relation, 'partition': partition, 'columns': columns,
                         'noscan': noscan, 'full': full, 'dry_run': dry_run, 'sketches': sketches}.items()
                             if value is not none -%}
    {%- do args.update({key: value}) -%}
  {%- endfor -%}
  {%- if args.get('schema') is not none or (args.get('statement')
                                            and 'tables_in' in dbt_analyze._parse_statement(args.statement)) -%}
    {{ return(dbt_analyze._analyze_tables_in_schema(args)) }}
  {%- endif -%}
  {%- set summary = dbt_analyze._run_analyze(args) -%}
  {%- if not summary.get('sql') -%}
    {{ log(dbt_analyze.format_statistics(summary.table, summary.run_id, summary.get('snapshot_run_id'),
                                           summary.get('run_metrics')), info=True) }}
    {%- if (dbt_analyze._var('dbt_analyze_histogram') or {}).get('kind') == 'hybrid' -%}
      {{ log('dbt_analyze: hybrid histograms are a model: dbt run --select dbt_analyze.column_histograms_hybrid refreshes them', info=True) }}
    {%- endif -%}
  {%- endif -%}
  {{ return(summary) }}
{% endmacro %}

{#- ANALYZE TABLES [IN db]: every table of the schema, one run each, in name order, with its
    progress logged; views are skipped (no data of their own). A table that fails stops the
    statement (Jinja cannot catch an error; Spark's logs it and goes on): the tables analyzed
    before it keep their new statistics, and a second run skips the unchanged ones. -#}
{% macro _analyze_tables_in_schema(args) %}
  {%- set run = dbt_analyze._new_run(args) -%}
  {%- set request = dbt_analyze._build_request(args, run) -%}
  {%- set schema = dbt_analyze._find_schema(request.tables_in or target.schema) -%}
  {%- if schema is none -%}
    {{ dbt_analyze._fail(run, "unknown schema '" ~ (request.tables_in or target.schema) ~ "'") }}
  {%- endif -%}
  {%- if schema | lower == dbt_analyze._stats_schema() | lower -%}
    {{ dbt_analyze._fail(run, "schema '" ~ schema
                         ~ "' holds dbt_analyze's own statistics tables; analyze the schemas of your data") }}
  {%- endif -%}
  {%- set schema_sql = dbt_analyze._quote_identifier(schema) -%}
  {%- set views = run_query('show views in ' ~ schema_sql).columns[1].values() | map('lower') | list -%}
  {%- set tables = [] -%}
  {%- set skipped = [] -%}
  {%- for row in run_query('show tables in ' ~ schema_sql) | sort(attribute=1) if not row[2] -%}
    {%- do (skipped if row[1] | lower in views else tables).append(row[1]) -%}
  {%- endfor -%}
  {%- set name = 'ANALYZE TABLES IN ' ~ schema -%}
  {{ log('dbt_analyze: ' ~ name ~ ': ' ~ tables | length ~ ' table(s)'
         ~ (', ' ~ skipped | length ~ ' view(s) skipped (no data of their own): ' ~ skipped | join(', ') if skipped
            else ''), info=True) }}
  {%- set summaries = [] -%}
  {%- for identifier in tables -%}
    {{ log('dbt_analyze: ' ~ name ~ ': table ' ~ loop.index ~ ' of ' ~ tables | length ~ ': ' ~ schema ~ '.'
           ~ identifier, info=True) }}
    {%- set table_args = {'relation': api.Relation.create(schema=schema, identifier=identifier)} -%}
    {%- for key in ['columns', 'noscan'] if request[key] -%}
      {%- do table_args.update({key: request[key]}) -%}
    {%- endfor -%}
    {%- for key in ['full', 'dry_run', 'sketches', 'sample', 'publish', 'top_k_tracked'] if args.get(key) is not none -%}
      {%- do table_args.update({key: args[key]}) -%}
    {%- endfor -%}
    {%- do summaries.append(dbt_analyze._run_analyze(table_args)) -%}
  {%- endfor -%}
  {%- set lines = [] -%}
  {%- for summary in summaries -%}
    {%- if summary.get('sql') -%}
      {%- do lines.append('  ' ~ summary.table ~ ': would scan ' ~ summary.scanned | length ~ ' partition(s), skip '
                          ~ summary.skipped | length) -%}
    {%- elif request.noscan -%}
      {%- do lines.append('  ' ~ summary.table ~ ': ' ~ summary.status ~ ', noscan: size and file count of '
                          ~ summary.skipped | length
                          ~ ' partition(s) from the file listing') -%}
    {%- else -%}
      {%- do lines.append('  ' ~ summary.table ~ ': ' ~ summary.status ~ ', ' ~ summary.scanned | length
                          ~ ' partition(s) scanned, '
                          ~ summary.skipped | length ~ ' skipped'
                          ~ (', ' ~ summary.rows_scanned ~ ' rows' if summary.get('rows_scanned') is not none
                             else '')) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ log('dbt_analyze: ' ~ name ~ ': ' ~ summaries | length ~ ' table(s) '
         ~ ('planned (dry run)' if request.dry_run else 'analyzed')
         ~ (':\n' ~ lines | join('\n') if lines else ''), info=True) }}
  {{ return({'schema': schema, 'tables': summaries, 'views_skipped': skipped}) }}
{% endmacro %}
