{#-
  dbt run-operation import_statistics --args '{path: stats.json}'
  dbt run-operation import_statistics --args '{path: stats.json, publish: true}'

  Loads a document of export_statistics into this environment's statistics tables, as one run per
  table. The tables must exist here with the same column types; a document of another version,
  for columns whose types differ, or whose rows do not read as statistics (a value not of its
  column's type, a damaged sketch), is refused before anything is written. Imported partition states
  take this environment's file listing as their fingerprint (the document vouches for the data),
  so later runs scan only partitions that change or appear, and merge them with the imported ones.
-#}
{% macro import_statistics(path=none, document=none, publish=false) %}
  {{ return(adapter.dispatch('import_statistics', 'dbt_analyze')(path, document, publish)) }}
{% endmacro %}

{% macro default__import_statistics(path, document, publish) %}
  {%- if not execute -%}{{ return(0) }}{%- endif -%}
  {%- set text = adapter.dbt_analyze_read_text(path) if path else document -%}
  {%- set parsed = fromjson(text) if text is string else text -%}
  {%- set expected = dbt_analyze._document_format() -%}
  {%- if parsed is not mapping or parsed.get('format') != expected.format -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: ' ~ (path or 'the document')
                                       ~ ' is not a dbt_analyze statistics document (format ' ~ expected.format
                                       ~ ')') }}
  {%- endif -%}
  {%- if parsed.get('version') != expected.version -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: statistics document version ' ~ parsed.get('version')
                                       ~ ' is unknown (this package reads version '
                                       ~ expected.version ~ '); export it again with this version of the package') }}
  {%- endif -%}
  {#- Every table is checked before anything is written, or the storage created. -#}
  {%- set plans = [] -%}
  {%- for entry in parsed.tables -%}
    {%- set name = entry.schema ~ '.' ~ entry.table -%}
    {%- set plan = dbt_analyze._plan_target(dbt_analyze._build_request({'relation': name, 'dry_run': true}),
                                            list_files=true) -%}
    {%- set here = {} -%}
    {%- for column in plan.table.data_columns -%}{%- do here.update({column.name: column.data_type}) -%}{%- endfor -%}
    {%- for column, data_type in entry.columns.items() if column in here and here[column] != data_type -%}
      {{ exceptions.raise_compiler_error("dbt_analyze: cannot import " ~ name ~ ": column '" ~ column ~ "' is "
                                         ~ here[column]
                                         ~ " here but " ~ data_type ~ " in the document") }}
    {%- endfor -%}
    {%- if entry.partition_columns != plan.table.partition_columns -%}
      {{ exceptions.raise_compiler_error('dbt_analyze: cannot import ' ~ name ~ ': partitioned by '
                                         ~ (plan.table.partition_columns | join(', ') or 'nothing')
                                         ~ ' here but by ' ~ (entry.partition_columns | join(', ') or 'nothing')
                                         ~ ' in the document') }}
    {%- endif -%}
    {%- for kind in dbt_analyze._document_kinds() if entry.rows.get(kind) -%}
      {%- set problem = adapter.dbt_analyze_query_error(dbt_analyze._document_rows_check_sql(kind,
          entry.rows[kind])) -%}
      {%- if problem.startswith('[MALFORMED_RECORD_IN_PARSING') -%}
        {%- set problem = "a value that is not of its column's type (" ~ problem.split(']')[0][1:] ~ ')' -%}
      {%- endif -%}
      {%- if problem -%}
        {{ exceptions.raise_compiler_error('dbt_analyze: cannot import ' ~ name ~ ': its ' ~ kind
                                           ~ ' rows in the document do not read as statistics: ' ~ problem) }}
      {%- endif -%}
    {%- endfor -%}
    {%- do plans.append([entry, plan, here]) -%}
  {%- endfor -%}
  {%- do dbt_analyze._ensure_storage() -%}

  {%- for entry, plan, here in plans -%}
    {%- set run = dbt_analyze._new_run({'import': path or 'document', 'exported_at': parsed.exported_at,
                                        'table': entry.schema ~ '.' ~ entry.table}) -%}
    {%- do dbt_analyze._write_event(run, 'started', plan.table) -%}
    {#- The document's rows as this run's: its table rows map its partitions' rows, which carry their
        states (as the rows of an upgraded storage of version 5: _merged_v5_rows_sql). -#}
    {%- set relations = {} -%}
    {%- for kind in dbt_analyze._document_kinds() -%}
      {%- set rows = [] -%}
      {%- for row in entry.rows.get(kind, []) if row.get('column_name', '') == '' or row.column_name in here
          or dbt_analyze._column_group_applies(row, plan.table) -%}
        {%- do row.update({'run_id': run.run_id}) -%}
        {%- if 'state_run_id' in row -%}{%- do row.update({'state_run_id': run.run_id}) -%}{%- endif -%}
        {%- if kind == 'partition_states' and row.partition_spec in plan.listing -%}
          {%- set files = plan.listing[row.partition_spec] -%}
          {%- do row.update({'file_count': files.file_count, 'size_bytes': files.size_bytes,
                             'files_modified_at': files.modified_at}) -%}
        {%- endif -%}
        {%- do rows.append(row) -%}
      {%- endfor -%}
      {%- do relations.update({kind: '(' ~ (dbt_analyze._document_rows_sql(kind, rows) if rows
                                            else dbt_analyze._null_row_sql(kind) ~ ' where false') ~ ')'}) -%}
    {%- endfor -%}
    {%- set this_run = "(select " ~ dbt_analyze._quote_literal(run.run_id) ~ " as run_id, "
                       ~ dbt_analyze._quote_literal(plan.table.schema) ~ " as table_schema, "
                       ~ dbt_analyze._quote_literal(plan.table.identifier) ~ " as table_name)" -%}
    {%- do run_query(dbt_analyze._merged_v5_rows_sql(dbt_analyze._storage_relation('statistics_history'), relations,
                                                     this_run)) -%}
    {%- set publish_ms = dbt_analyze._publish_to_catalog(plan.table, run.run_id) if dbt_analyze._as_bool(publish)
                         else none -%}
    {%- do dbt_analyze._write_event(run, 'succeeded', plan.table,
                                    {'partitions_scanned': 0, 'publish_ms': publish_ms,
                                     'notes': 'imported (exported at ' ~ parsed.exported_at ~ ')'}) -%}
    {{ log('dbt_analyze: imported the statistics of ' ~ entry.schema ~ '.' ~ entry.table ~ ' ('
           ~ entry.rows.partition_states | length ~ ' partition state(s))', info=True) }}
  {%- endfor -%}
  {{ return(plans | length) }}
{% endmacro %}
