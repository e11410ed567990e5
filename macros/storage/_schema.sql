{#-
  Storage: append-only parquet tables in the statistics schema, and views over them. A run's rows
  count only once its `succeeded` event is written (after its one write of statistics), so a run
  that fails or is killed halfway changes no current statistic.

    analyze_run_events        started / succeeded / unchanged / failed events of every run
    statistics_history        every run's statistics in one write: per table, partition and column
                              (column_name '' for the table or partition itself), with quantiles,
                              histogram bins and top values as arrays, and the partition's state
                              (state_*: exact aggregates and sketches, what merges read)
    staleness_checks, column_statistics_estimated_history
  A run writes the rows of the partitions it scanned (each carrying its state) and the table's
  rows ('' partition), whose partition_runs maps every partition counted to the run that holds its
  current row, and column_types the table's columns then (a partition's rows of a column dropped
  or retyped since are not current). Views (the statistic kinds of _statistics_kinds, also models of the package to
  ref()): <kind>_history, every run's rows; <kind>, the current ones (the latest succeeded run's
  table rows, and the partition rows it maps); and partition_states, every stored state.
  Every table is bucketed by table_name, so a run reads its own table's bucket only (_table_where_sql).
-#}
{% macro _storage_columns(name) %}
  {%- set run = [('run_id', 'string')] -%}
  {%- set target = [('table_schema', 'string'), ('table_name', 'string'), ('partition_spec', 'string')] -%}
  {%- set state = [('row_count', 'bigint'), ('file_count', 'bigint'), ('size_bytes', 'bigint'),
                   ('files_modified_at', 'string')]
                  + dbt_analyze._state_fields()
                  + [('sketches', 'string'), ('sample_rows', 'bigint'), ('collected_at', 'timestamp'),
                     ('sketch_rate', 'double')] -%}
  {#- statistics_history holds the state's fields as state_*, those added in version 8 after its
      other columns (an upgrade appends them: _upgrade_plain_tables). -#}
  {%- set added = dbt_analyze._columns_added_in_8() -%}
  {%- set prefixed_state = [] -%}
  {%- set prefixed_added = [] -%}
  {%- for column, type in state -%}
    {%- do (prefixed_added if 'state_' ~ column in added else prefixed_state).append(('state_' ~ column, type)) -%}
  {%- endfor -%}
  {#- statistics_history's top_values_truncated: the column's most common values stopped where its
      top-k sketch stopped counting, and a larger sketch would list more (_grow_top_k). -#}
  {%- set tables = {
    'analyze_run_events': run + [('invocation_id', 'string'), ('table_schema', 'string'), ('table_name', 'string'),
        ('event', 'string'), ('event_at', 'timestamp'), ('request', 'string'),
        ('partitions_scanned', 'bigint'), ('partitions_skipped', 'bigint'), ('rows_scanned', 'bigint'),
        ('bytes_scanned', 'bigint'), ('plan_ms', 'bigint'), ('scan_ms', 'bigint'), ('merge_ms', 'bigint'),
        ('error', 'string'), ('sketch_bytes', 'bigint'), ('publish_ms', 'bigint'), ('notes', 'string'),
        ('statements', 'bigint')],
    'statistics_history': run + target + [('column_name', 'string'), ('data_type', 'string'),
        ('row_count', 'bigint'), ('size_bytes', 'bigint'), ('file_count', 'bigint'), ('partition_count', 'bigint'),
        ('partitions_analyzed', 'bigint'), ('sampled', 'boolean'), ('collected_at', 'timestamp'),
        ('partition_runs', 'map<string,string>'), ('column_types', 'map<string,string>'),
        ('null_count', 'bigint'), ('distinct_count', 'bigint'), ('min_value', 'string'), ('max_value', 'string'),
        ('avg_len', 'double'), ('max_len', 'bigint'), ('true_count', 'bigint'), ('false_count', 'bigint'),
        ('mean', 'double'), ('stddev', 'double'), ('quantiles', 'array<struct<quantile:double,value:string>>'),
        ('histogram',
         'array<struct<bin:int,lower_bound:string,upper_bound:string,row_count:double,distinct_count:bigint>>'),
        ('top_values', 'array<struct<rank:int,value:string,frequency:bigint>>')] + prefixed_state
        + [('top_values_truncated', 'boolean')] + prefixed_added + [('sketch_values', 'bigint')],
    'partition_states': run + target + [('column_name', 'string'), ('data_type', 'string')] + state,
    'table_statistics_history': run + target + [('row_count', 'bigint'), ('size_bytes', 'bigint'),
        ('file_count', 'bigint'), ('partition_count', 'bigint'), ('partitions_analyzed', 'bigint'),
        ('sampled', 'boolean'), ('collected_at', 'timestamp'), ('state_run_id', 'string')],
    'column_statistics_history': run + target + [('column_name', 'string'), ('data_type', 'string'),
        ('null_count', 'bigint'), ('distinct_count', 'bigint'), ('min_value', 'string'), ('max_value', 'string'),
        ('avg_len', 'double'), ('max_len', 'bigint'), ('true_count', 'bigint'), ('false_count', 'bigint'),
        ('mean', 'double'), ('stddev', 'double'), ('partitions_analyzed', 'bigint'), ('sampled', 'boolean'),
        ('collected_at', 'timestamp'), ('state_run_id', 'string'), ('sketch_values', 'bigint')],
    'staleness_checks': [('check_id', 'string'), ('checked_at', 'timestamp'), ('table_schema', 'string'),
        ('table_name', 'string'), ('partition_spec', 'string'), ('status', 'string'), ('collected_at', 'timestamp')],
    'column_group_statistics_history': run + target + [('column_names', 'array<string>'),
        ('distinct_count', 'bigint'), ('null_count', 'bigint'), ('partitions_analyzed', 'bigint'), ('sampled', 'boolean'),
        ('collected_at', 'timestamp'), ('state_run_id', 'string')],
    'column_quantiles_history': run + target + [('column_name', 'string'), ('quantile', 'double'), ('value', 'string')],
    'column_histograms_history': run + target + [('column_name', 'string'), ('bin', 'int'), ('lower_bound', 'string'),
        ('upper_bound', 'string'), ('row_count', 'double'), ('distinct_count', 'bigint')],
    'column_top_values_history': run + target
        + [('column_name', 'string'), ('rank', 'int'), ('value', 'string'), ('frequency', 'bigint')],
    'column_statistics_estimated_history': [('estimate_id', 'string'), ('estimated_at', 'timestamp'),
        ('table_schema', 'string'), ('table_name', 'string'), ('column_name', 'string'), ('data_type', 'string'),
        ('row_count', 'bigint'), ('null_count', 'bigint'), ('distinct_count', 'bigint'), ('min_value', 'string'),
        ('max_value', 'string'), ('avg_len', 'double'), ('max_len', 'bigint'), ('accuracy', 'string'),
        ('derived_from', 'string')],
  } -%}
  {{ return(tables[name]) }}
{% endmacro %}

{% macro _storage_tables() %}
  {{ return(['analyze_run_events', 'statistics_history', 'staleness_checks', 'column_statistics_estimated_history']) }}
{% endmacro %}

{#- Raised whenever a storage table gains a column or an option: older statistics schemas are upgraded in place. -#}
{% macro _storage_version() %}
  {{ return('9') }}
{% endmacro %}

{#- statistics_history's columns added in version 8 (sampled distribution sketches): the rate a
    state's KLL and top-k sketches were fed at, the values they saw, and a column row's values its
    quantiles, histogram and top values come from. Older rows and documents read NULL there. -#}
{% macro _columns_added_in_8() %}
  {{ return(['state_sketch_values', 'state_sketch_rate', 'sketch_values']) }}
{% endmacro %}

{#- The statistic kinds: views over statistics_history named <kind>_history (every run) and <kind>
    (current), each {where, from: a lateral view of one array, fields: its columns that come from
    elsewhere than statistics_history's column of the same name}. Their columns are the storage
    columns of <kind>_history (the tables of storage version 5 and older). -#}
{#- The rows of columns: not the table's (''), nor a column group's (_column_groups.sql). -#}
{% macro _column_rows_where() %}
  {{ return("column_name <> '' and data_type <> " ~ dbt_analyze._quote_literal(dbt_analyze._column_group_type())) }}
{% endmacro %}

{% macro _statistics_kinds() %}
  {%- set rendered = dbt_analyze._rendered_sql -%}
  {{ return({
    'table_statistics': {'where': "column_name = ''", 'fields': {'state_run_id': 'run_id'}},
    'column_statistics': {'where': dbt_analyze._column_rows_where(), 'fields': {'state_run_id': 'run_id', 'min_value': rendered('s.min_value'),
                                                                   'max_value': rendered('s.max_value')}},
    'column_quantiles': {'where': dbt_analyze._column_rows_where(), 'from': 'lateral view inline(quantiles) q',
                         'fields': {'quantile': 'q.quantile', 'value': rendered('q.value')}},
    'column_histograms': {'where': dbt_analyze._column_rows_where(), 'from': 'lateral view inline(histogram) h',
                          'fields': {'bin': 'h.bin', 'lower_bound': rendered('h.lower_bound'), 'upper_bound': rendered('h.upper_bound'),
                                     'row_count': 'h.row_count', 'distinct_count': 'h.distinct_count'}},
    'column_top_values': {'where': dbt_analyze._column_rows_where(), 'from': 'lateral view inline(top_values) t',
                          'fields': {'rank': 't.rank', 'value': rendered('t.value'), 'frequency': 't.frequency'}},
  }) }}
{% endmacro %}

{#- Options of every storage table, which Spark applies to every write into it. Two Spark jobs
    appending to one table at once (two runs over a Thrift server) share the table's _temporary
    directory, and the first to commit deletes it under the other: a failed run, or worse, rows
    gone missing. So task files are committed straight into the table (a failed run's rows stay
    invisible, as only succeeded runs count) and _temporary is left alone (Spark skips _-prefixed
    paths). Table options rather than SET: no statements around each write, and other writes of
    the session (dbt's threads share it) keep their own settings. -#}
{% macro _storage_options() %}
  {{ return("('mapreduce.fileoutputcommitter.algorithm.version' = '2', 'mapreduce.fileoutputcommitter.cleanup.skipped' = 'true')") }}
{% endmacro %}

{% macro _storage_relation(name) %}
  {{ return(dbt_analyze._quote_relation(dbt_analyze._stats_schema(), name)) }}
{% endmacro %}

{#- The storage tables grow by a file or more per run, and reading every file of every analyzed
    table's history is what long histories made runs spend their time on. So each table is
    bucketed by table_name (no column and no metastore partition of its own): every write puts a
    table's rows in its bucket's files, and every read that names a table (table_name = '...')
    opens only the files of that bucket. 8 buckets, not more: Spark reads a bucket-pruned table
    with one task per bucket, empty ones included, and a run makes about a dozen such reads
    (docs/decisions/storage-bucketed-by-table.md), while 8 still leave 7/8 of other tables' history unread. -#}
{% macro _table_bucket_count() %}{{ return(8) }}{% endmacro %}

{#- The bucket of a table_name, as Spark computes it for bucketed tables (murmur3 hash). -#}
{% macro _table_bucket_sql(name_sql) %}
  {{ return('pmod(hash(' ~ name_sql ~ '), ' ~ dbt_analyze._table_bucket_count() ~ ')') }}
{% endmacro %}

{#- `table_schema = ... and table_name = ...`: the rows of one table (a Relation or anything with
    schema and identifier), read from its bucket only; prefix: a table alias with its dot. -#}
{% macro _table_where_sql(table, prefix='') %}
  {{ return(prefix ~ 'table_schema = ' ~ dbt_analyze._quote_literal(table.schema) ~ ' and ' ~ prefix ~ 'table_name = '
            ~ dbt_analyze._quote_literal(table.identifier)) }}
{% endmacro %}
