{#-
  Statistics documents: the current statistics of tables as one versioned JSON document, for
  export_statistics and import_statistics. Per table, the rows of every storage table as they
  are stored (sketches in base64), so imported statistics stay mergeable:

    {"format": "dbt_analyze.statistics", "version": 1, "exported_at": "...",
     "tables": [{"schema": "analytics", "table": "orders", "columns": {"amount": "double", ...},
                 "partition_columns": ["day"],
                 "rows": {"partition_states": [...], "table_statistics_history": [...], ...}}]}

  partition_states: the current state of every partition and column; *_history: the table's
  current statistics (its table rows and its partitions' rows), in the columns of those views
  (column_statistics_history with the rows of column groups too: data_type 'column group').
-#}
{% macro _document_format() %}{{ return({'format': 'dbt_analyze.statistics', 'version': 1}) }}{% endmacro %}

{% macro _document_kinds() %}
  {%- set kinds = ['partition_states'] -%}
  {%- for kind in dbt_analyze._statistics_kinds() -%}{%- do kinds.append(kind ~ '_history') -%}{%- endfor -%}
  {{ return(kinds) }}
{% endmacro %}

{#- JSON options that keep microseconds (to_json's default drops them); from_json's parse mode. -#}
{% macro _json_options_sql(mode=none) %}
  {{ return("map('timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS'"
            ~ (", 'mode', " ~ dbt_analyze._quote_literal(mode) if mode else '') ~ ')') }}
{% endmacro %}

{#- The rows of a query as dicts (through JSON: agate would turn arrays and maps into text);
    sorted: by their JSON text, for documents that compare equal when their rows do. -#}
{% macro _json_rows(sql, sorted=false) %}
  {{ return(dbt_analyze._parse_json_rows(run_query(dbt_analyze._json_rows_sql(sql, sorted)))) }}
{% endmacro %}

{#- The query of _json_rows, and the parsing of its rows (for queries run by others: _run_at_once). -#}
{% macro _json_rows_sql(sql, sorted=false) %}
  {{ return('select to_json(struct(*), ' ~ dbt_analyze._json_options_sql() ~ ') from (' ~ sql ~ ')'
            ~ (' order by 1' if sorted else '')) }}
{% endmacro %}

{% macro _parse_json_rows(rows) %}
  {%- set parsed = [] -%}
  {%- for row in rows -%}{%- do parsed.append(fromjson(row[0])) -%}{%- endfor -%}
  {{ return(parsed) }}
{% endmacro %}

{% macro _table_document(plan) %}
  {%- set table = plan.table -%}
  {%- set columns = {} -%}
  {%- for column in table.data_columns -%}{%- do columns.update({column.name: column.data_type}) -%}{%- endfor -%}
  {%- set document = {'schema': table.schema, 'table': table.identifier, 'columns': columns,
                      'partition_columns': table.partition_columns, 'rows': {}} -%}
  {%- set current = '(' ~ dbt_analyze._current_rows_sql(none, table) ~ ')' -%}
  {%- for kind in dbt_analyze._document_kinds() -%}
    {#- A column group's rows go with its columns' (_column_groups.sql): an import rebuilds them alike. -#}
    {%- set source = dbt_analyze._partition_states_sql(current ~ ' c') if kind == 'partition_states'
                     else dbt_analyze._statistics_view_sql(kind[:-8], 'select * from ' ~ current ~ ' c',
                                                           "column_name <> ''" if kind == 'column_statistics_history'
                                                           else none) -%}
    {%- do document.rows.update({kind: dbt_analyze._json_rows(source, sorted=true)}) -%}
  {%- endfor -%}
  {{ return(document) }}
{% endmacro %}

{#- A document's rows of one storage table as a query: its JSON read back with the table's own
    schema, FAILFAST: a value not of its column's type stops the read instead of becoming NULL. -#}
{% macro _document_rows_sql(kind, rows) %}
  {%- set fields = [] -%}
  {%- for column, type in dbt_analyze._storage_columns(kind) -%}
    {%- do fields.append(column ~ ': ' ~ type) -%}
  {%- endfor -%}
  {{ return('select inline(from_json(' ~ dbt_analyze._quote_literal(tojson(rows)) ~ ', '
            ~ dbt_analyze._quote_literal('array<struct<' ~ fields | join(', ') ~ '>>')
            ~ ', ' ~ dbt_analyze._json_options_sql('FAILFAST') ~ '))') }}
{% endmacro %}

{% macro _insert_document_rows_sql(kind, rows) %}
  {{ return('insert into ' ~ dbt_analyze._storage_relation(kind) ~ ' ' ~ dbt_analyze._document_rows_sql(kind, rows)) }}
{% endmacro %}

{#- A query that fails unless a document's rows of one storage table read as statistics: every
    value of its column's type, every row naming its table and partition (and a state its column
    and row count), every sketch one that the merge can read. An edited or damaged document is
    refused at import, not by every later merge of the table. -#}
{% macro _document_rows_check_sql(kind, rows) %}
  {%- set required = ['table_schema', 'table_name', 'partition_spec']
                     + (['column_name', 'row_count'] if kind == 'partition_states' else []) -%}
  {%- set checks = ["count(assert_true(" ~ required | join(' is not null and ') ~ " is not null, 'a row without its "
                    ~ required | join(', ') ~ "'))"] -%}
  {%- if kind == 'partition_states' -%}
    {%- do checks.extend(['sum(hll_sketch_estimate(ndv_sketch))', 'sum(kll_sketch_get_n_double(quantile_sketch))']) -%}
    {#- A top-k sketch is read as the merge reads it: as the column's type, unless it holds text (_top_values_sql). -#}
    {%- set native = [] -%}
    {%- for data_type in rows | map(attribute='data_type') | select | unique
        if dbt_analyze._type_category(data_type) in dbt_analyze._native_top_k_categories() -%}
      {%- do native.append(dbt_analyze._quote_literal(data_type)) -%}
      {%- do checks.append('count(if(top_values_sketch is not null and data_type = ' ~ native[-1] ~ ' and not '
                           ~ dbt_analyze._text_items_sql('top_values_sketch')
                           ~ ', approx_top_k_estimate(cast(top_values_sketch as '
                           ~ dbt_analyze._top_values_sketch_type(data_type) ~ ')), null))') -%}
    {%- endfor -%}
    {%- set as_stored = ('(' ~ dbt_analyze._text_items_sql('top_values_sketch') ~ ' or data_type not in ('
                         ~ native | join(', ') ~ '))') if native else 'true' -%}
    {#- A column without one (a boolean's, a column group's) has none to read. -#}
    {%- do checks.append('count(if(top_values_sketch is not null and ' ~ as_stored
                         ~ ', approx_top_k_estimate(top_values_sketch), null))') -%}
  {%- endif -%}
  {{ return('select ' ~ checks | join(', ') ~ ' from (' ~ dbt_analyze._document_rows_sql(kind, rows) ~ ')') }}
{% endmacro %}
