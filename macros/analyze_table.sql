{#-
  dbt run-operation analyze_table --args '{statement: "ANALYZE TABLE db.t COMPUTE STATISTICS FOR ALL COLUMNS"}'
  dbt run-operation analyze_table --args '{relation: db.t, partition: {dt: "2024-01-01"}, columns: all}'

  Collects statistics with one scan of the selected (new or changed) partitions, merges them into
  table statistics and prints them. Options: statement | relation, partition, columns, noscan,
  full, dry_run, sketches (full | basic), sample, publish (into Spark's catalog).
-#}
{% macro analyze_table(statement=none, relation=none, partition=none, columns=none, noscan=none, full=none, dry_run=none, sketches=none) %}
  {#- Unknown keyword arguments reach the request check, which names them. -#}
  {{ return(adapter.dispatch('analyze_table', 'dbt_analyze')(statement, relation, partition, columns, noscan, full, dry_run, sketches, kwargs)) }}
{% endmacro %}

{% macro default__analyze_table(statement, relation, partition, columns, noscan, full, dry_run, sketches, unknown={}) %}
  {%- set args = dict(unknown) -%}
  {%- for key, value in {'statement': statement, 'relation': relation, 'partition': partition, 'columns': columns,
                         'noscan': noscan, 'full': full, 'dry_run': dry_run, 'sketches': sketches}.items() if value is not none -%}
    {%- do args.update({key: value}) -%}
  {%- endfor -%}
  {%- set summary = dbt_analyze._run_analyze(args) -%}
  {%- if not summary.get('sql') -%}
    {{ log(dbt_analyze.format_statistics(summary.table, summary.run_id, summary.get('snapshot_run_id')), info=True) }}
    {%- if (dbt_analyze._var('dbt_analyze_histogram') or {}).get('kind') == 'hybrid' -%}
      {{ log('dbt_analyze: hybrid histograms are a model: dbt run --select dbt_analyze.column_histograms_hybrid refreshes them', info=True) }}
    {%- endif -%}
  {%- endif -%}
  {{ return(summary) }}
{% endmacro %}
