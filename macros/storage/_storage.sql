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
                  + [('sketches', 'string'), ('sample_rows', 'bigint'), ('collected_at', 'timestamp')] -%}
  {%- set prefixed_state = [] -%}
  {%- for column, type in state -%}{%- do prefixed_state.append(('state_' ~ column, type)) -%}{%- endfor -%}
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
        + [('top_values_truncated', 'boolean')],
    'partition_states': run + target + [('column_name', 'string'), ('data_type', 'string')] + state,
    'table_statistics_history': run + target + [('row_count', 'bigint'), ('size_bytes', 'bigint'),
        ('file_count', 'bigint'), ('partition_count', 'bigint'), ('partitions_analyzed', 'bigint'),
        ('sampled', 'boolean'), ('collected_at', 'timestamp'), ('state_run_id', 'string')],
    'column_statistics_history': run + target + [('column_name', 'string'), ('data_type', 'string'),
        ('null_count', 'bigint'), ('distinct_count', 'bigint'), ('min_value', 'string'), ('max_value', 'string'),
        ('avg_len', 'double'), ('max_len', 'bigint'), ('true_count', 'bigint'), ('false_count', 'bigint'),
        ('mean', 'double'), ('stddev', 'double'), ('partitions_analyzed', 'bigint'), ('sampled', 'boolean'),
        ('collected_at', 'timestamp'), ('state_run_id', 'string')],
    'staleness_checks': [('check_id', 'string'), ('checked_at', 'timestamp'), ('table_schema', 'string'),
        ('table_name', 'string'), ('partition_spec', 'string'), ('status', 'string'), ('collected_at', 'timestamp')],
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

{#- The statistic kinds: views over statistics_history named <kind>_history (every run) and <kind>
    (current), each {where, from: a lateral view of one array, fields: its columns that come from
    elsewhere than statistics_history's column of the same name}. Their columns are the storage
    columns of <kind>_history (the tables of storage version 5 and older). -#}
{% macro _statistics_kinds() %}
  {%- set rendered = dbt_analyze._rendered_sql -%}
  {{ return({
    'table_statistics': {'where': "column_name = ''", 'fields': {'state_run_id': 'run_id'}},
    'column_statistics': {'where': "column_name <> ''", 'fields': {'state_run_id': 'run_id', 'min_value': rendered('s.min_value'),
                                                                   'max_value': rendered('s.max_value')}},
    'column_quantiles': {'where': "column_name <> ''", 'from': 'lateral view inline(quantiles) q',
                         'fields': {'quantile': 'q.quantile', 'value': rendered('q.value')}},
    'column_histograms': {'where': "column_name <> ''", 'from': 'lateral view inline(histogram) h',
                          'fields': {'bin': 'h.bin', 'lower_bound': rendered('h.lower_bound'), 'upper_bound': rendered('h.upper_bound'),
                                     'row_count': 'h.row_count', 'distinct_count': 'h.distinct_count'}},
    'column_top_values': {'where': "column_name <> ''", 'from': 'lateral view inline(top_values) t',
                          'fields': {'rank': 't.rank', 'value': rendered('t.value'), 'frequency': 't.frequency'}},
  }) }}
{% endmacro %}

{#- A value of a row's column as text: a timestamp's is stored as its instant (microseconds since
    the epoch) and rendered here as UTC's clock time, by arithmetic on a timestamp_ntz: no session
    zone takes part (a view resolves in the zone of the session that created it), so rows taken
    under any zone read alike. Text of other types, and of rows stored rendered (storage version 5,
    set_statistics), as it is. -#}
{% macro _rendered_sql(value) %}
  {{ return("if(s.data_type in ('timestamp', 'timestamp_ltz'), coalesce("
            ~ dbt_analyze._utc_clock_sql('try_cast(' ~ value ~ ' as bigint)') ~ ', '
            ~ value ~ '), ' ~ value ~ ')') }}
{% endmacro %}

{#- Microseconds since the epoch as the text of UTC's clock time then (cast(x as string)'s format). -#}
{% macro _utc_clock_sql(micros) %}
  {{ return("cast(timestamp_ntz'1970-01-01 00:00:00' + make_dt_interval(0, 0, 0, cast(cast(" ~ micros
            ~ ' as decimal(18, 0)) / 1000000 as decimal(18, 6))) as string)') }}
{% endmacro %}

{#- The view of one kind over `source` (statistics_history, or its current rows: _current_rows_sql). -#}
{% macro _statistics_view_sql(kind, source) %}
  {%- set spec = dbt_analyze._statistics_kinds()[kind] -%}
  {%- set columns = [] -%}
  {%- for column, type in dbt_analyze._storage_columns(kind ~ '_history') -%}
    {%- do columns.append(spec.fields.get(column, 's.' ~ column) ~ ' as ' ~ column) -%}
  {%- endfor -%}
  {{ return('select ' ~ columns | join(', ') ~ ' from (' ~ source ~ ') s ' ~ spec.get('from', '') ~ ' where '
            ~ spec.where) }}
{% endmacro %}

{#- Every stored state (the rows that carry one), in the columns of partition_states. -#}
{% macro _partition_states_sql(source=none) %}
  {%- set columns = [] -%}
  {%- for column, type in dbt_analyze._storage_columns('partition_states') -%}
    {%- do columns.append(column if column in ('run_id', 'table_schema', 'table_name', 'partition_spec', 'column_name',
                                               'data_type')
                          else 'state_' ~ column ~ ' as ' ~ column) -%}
  {%- endfor -%}
  {{ return('select ' ~ columns | join(', ') ~ ' from '
            ~ (source or dbt_analyze._storage_relation('statistics_history'))
            ~ ' where state_collected_at is not null') }}
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
    (BENCHMARKS.md, "Design measurements"), while 8 still leave 7/8 of other tables' history unread. -#}
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

{#- Creates a storage table (at its place, or under another name: a rebuild). Each bucket's files
    are sorted by table and run, so a compaction (one file per bucket) keeps each run's rows together. -#}
{% macro _create_storage_table(name, relation) %}
  {%- set columns = [] -%}
  {%- for column, type in dbt_analyze._storage_columns(name) -%}
    {%- do columns.append(dbt_analyze._quote_identifier(column) ~ ' ' ~ type) -%}
  {%- endfor -%}
  {%- set order = ['table_schema', 'table_name']
                  + (['run_id'] if 'run_id' in dbt_analyze._storage_columns(name) | map('first') | list else []) -%}
  {%- do dbt_analyze._create_storage_object('create table if not exists ' ~ relation ~ ' (' ~ columns | join(', ')
                                            ~ ') using parquet options ' ~ dbt_analyze._storage_options()
                   ~ ' clustered by (table_name) sorted by (' ~ order | join(', ') ~ ') into '
                   ~ dbt_analyze._table_bucket_count() ~ ' buckets') -%}
{% endmacro %}

{#- Runs a `create table if not exists` or `create or replace view` of the storage. Spark checks
    whether the object exists and then creates it: when another connection (another dbt process
    over a Thrift server, or on a shared metastore) creates the same object in between, the
    statement fails with TABLE_OR_VIEW_ALREADY_EXISTS though what it asks for is there. Run once
    more, it finds the object (and replaces the view with the same definition). -#}
{% macro _create_storage_object(sql) %}
  {%- set error = adapter.dbt_analyze_query_error(sql) if adapter.dbt_analyze_query_error is defined else none -%}
  {%- if error is none or 'TABLE_OR_VIEW_ALREADY_EXISTS' in error -%}
    {%- do run_query(sql) -%}
  {%- elif error -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: could not create the statistics storage: ' ~ error ~ ' (in: '
                                       ~ sql[:200] ~ ' ...)') }}
  {%- endif -%}
{% endmacro %}

{#- Makes sure the storage is there, current and not blocked by a compaction (unless called by it:
    compacting). One statement when it is (the events table's properties, which hold the version
    and the block); else, one dbt thread at a time (a lock of the library: on a fresh schema the
    package's view models and other models' post-hooks all arrive here at once), creates what is
    missing or upgrades it. -#}
{% macro _ensure_storage(compacting=false) %}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set properties = dbt_analyze._storage_properties() -%}
  {%- if properties is none or properties.get('dbt_analyze.storage_version') != dbt_analyze._storage_version() -%}
    {%- if adapter.dbt_analyze_one_at_a_time is defined -%}
      {%- do adapter.dbt_analyze_one_at_a_time('storage', dbt_analyze._create_missing_storage, compacting) -%}
    {%- else -%}
      {%- do dbt_analyze._create_missing_storage(compacting) -%}
    {%- endif -%}
  {%- else -%}
    {%- do dbt_analyze._refuse_while_compacting(properties, [], compacting) -%}
  {%- endif -%}
  {%- do dbt_analyze._refresh_storage() -%}
  {{ return('') }}
{% endmacro %}

{#- The events table's properties, or none while it does not exist (or its schema). -#}
{% macro _storage_properties() %}
  {%- if adapter.dbt_analyze_table_exists is defined
      and adapter.dbt_analyze_table_exists(dbt_analyze._stats_schema(), 'analyze_run_events') == false -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set sql = 'show tblproperties ' ~ dbt_analyze._storage_relation('analyze_run_events') -%}
  {%- set found = adapter.dbt_analyze_query_rows(sql) if adapter.dbt_analyze_query_rows is defined else none -%}
  {%- if found is none -%}
    {%- if 'analyze_run_events' not in dbt_analyze._existing_tables(dbt_analyze._stats_schema()) -%}{{ return(none) }}{%- endif -%}
    {%- set found = {'rows': run_query(sql).rows} -%}
  {%- endif -%}
  {%- if found.get('error') is not none -%}{{ return(none) }}{%- endif -%}
  {%- set properties = {} -%}
  {%- for row in found.rows -%}{%- do properties.update({row[0]: row[1]}) -%}{%- endfor -%}
  {{ return(properties) }}
{% endmacro %}

{% macro _refuse_while_compacting(properties, rebuilding, compacting) %}
  {%- if (properties.get('dbt_analyze.compacting') or rebuilding) and not compacting -%}
    {%- set since = ('compact_statistics started ' ~ properties['dbt_analyze.compacting'])
                    if properties.get('dbt_analyze.compacting')
                    else ('unfinished rebuild: ' ~ rebuilding | join(', ')) -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: the statistics tables in ' ~ dbt_analyze._stats_schema()
                                       ~ ' are being compacted (' ~ since ~ '); run again when it ends. '
                                       ~ 'If that compaction was interrupted, run compact_statistics again: it finishes the work and lifts this block') }}
  {%- endif -%}
{% endmacro %}

{#- A Spark Thrift Server gives each connection a Spark session of its own, and a session keeps
    the file lists of the tables it has read: another connection's writes (a run in another dbt
    process or thread, a compaction) do not refresh them. Read through them, the statistics tables
    would miss those runs' rows, or name files a compaction removed. So on such a connection the
    tables (`names`, else all) are refreshed before an operation reads them (_ensure_storage),
    before a merge again after concurrent runs, and by the read macros. dbt-spark's in-process
    session is one Spark session for all dbt threads, which its own writes keep current. -#}
{% macro _refresh_storage(names=none) %}
  {%- if not (adapter.dbt_analyze_is_session is defined and adapter.dbt_analyze_is_session()) -%}
    {%- for name in names or dbt_analyze._storage_tables() -%}
      {%- do run_query('refresh table ' ~ dbt_analyze._storage_relation(name)) -%}
    {%- endfor -%}
  {%- endif -%}
{% endmacro %}

{#- Creates what is missing: the schema, the tables and the views; upgrades storage of an older
    version. The views are defined with the tables (first use) and again by an upgrade, never
    otherwise: they are models of the package too, and a dbt thread replacing one (drop, then
    create) must not meet another thread that takes it for missing. `dbt run -s dbt_analyze`
    redefines them. -#}
{% macro _create_missing_storage(compacting) %}
  {%- set schema = dbt_analyze._stats_schema() -%}
  {%- do run_query('create schema if not exists ' ~ dbt_analyze._quote_identifier(schema)) -%}
  {%- set existing = run_query('show tables in ' ~ dbt_analyze._quote_identifier(schema)).columns[1].values()
                     | map('lower') | list -%}
  {%- set properties = dbt_analyze._storage_properties() if 'analyze_run_events' in existing else {} -%}
  {%- set rebuilding = [] -%}
  {%- for name in existing if name.endswith('__rebuilt') and name != 'statistics_history__rebuilt' -%}
    {%- do rebuilding.append(name) -%}
  {%- endfor -%}
  {%- do dbt_analyze._refuse_while_compacting(properties, rebuilding, compacting) -%}
  {%- set version = dbt_analyze._storage_version() -%}
  {%- set upgrade = 'analyze_run_events' in existing and properties.get('dbt_analyze.storage_version') != version -%}
  {%- if upgrade -%}
    {%- do dbt_analyze._upgrade_plain_tables(existing) -%}
    {%- do dbt_analyze._merge_statistics_tables(existing) -%}
  {%- endif -%}
  {%- set created = [] -%}
  {%- for name in dbt_analyze._storage_tables() if name not in existing -%}
    {%- do created.append(name) -%}
    {%- do dbt_analyze._create_storage_table(name, dbt_analyze._storage_relation(name)) -%}
  {%- endfor -%}
  {%- if created or upgrade -%}
    {%- set table = dbt_analyze._storage_relation('statistics_history') -%}
    {%- set views = {'analyze_runs': dbt_analyze._analyze_runs_sql(),
                     'table_staleness': dbt_analyze._table_staleness_sql(),
                     'column_statistics_estimated': dbt_analyze._latest_estimates_sql(),
                     'partition_states': dbt_analyze._partition_states_sql()} -%}
    {%- for kind in dbt_analyze._statistics_kinds() -%}
      {%- do views.update({kind ~ '_history': dbt_analyze._statistics_view_sql(kind, 'select * from ' ~ table),
                           kind: dbt_analyze._statistics_view_sql(kind, dbt_analyze._current_rows_sql())}) -%}
    {%- endfor -%}
    {%- for name, select_sql in views.items() -%}
      {%- do dbt_analyze._create_storage_object('create or replace view ' ~ dbt_analyze._storage_relation(name) ~ ' as '
                                                ~ select_sql) -%}
    {%- endfor -%}
    {%- do run_query('alter table ' ~ dbt_analyze._storage_relation('analyze_run_events')
                     ~ " set tblproperties ('dbt_analyze.storage_version' = '" ~ version ~ "')") -%}
    {%- if upgrade -%}{{ log('dbt_analyze: statistics tables in ' ~ schema ~ ' upgraded to storage version ' ~ version,
                             info=True) }}{%- endif -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

{#- The tables that stay tables across versions gain the columns added since (older rows read NULL
    there): appended, or by a rebuild when they belong in between or the table is not bucketed as
    now (storage of version 3 and older is not bucketed, version 4 has 64 buckets); and the
    committer options (version 2 and older wrote with SET around each write). -#}
{% macro _upgrade_plain_tables(existing) %}
  {%- for name in dbt_analyze._storage_tables() if name in existing -%}
    {%- set described = run_query('describe table extended ' ~ dbt_analyze._storage_relation(name)) -%}
    {%- set st = namespace(columns=true, present=[], bucketed=false, buckets=none) -%}
    {%- for row in described -%}
      {%- if not row[0] or row[0].startswith('#') -%}{%- set st.columns = false -%}
      {%- elif st.columns -%}{%- do st.present.append(row[0]) -%}
      {%- elif row[0] == 'Bucket Columns' and 'table_name' in row[1] -%}{%- set st.bucketed = true -%}
      {%- elif row[0] == 'Num Buckets' -%}{%- set st.buckets = row[1] | string | trim -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set expected = dbt_analyze._storage_columns(name) -%}
    {%- if not st.bucketed or st.buckets != dbt_analyze._table_bucket_count() | string
          or st.present != (expected | map('first') | list)[:st.present | length] -%}
      {%- set values = [] -%}
      {%- for column, type in expected -%}
        {%- do values.append(dbt_analyze._quote_identifier(column) if column in st.present
                             else 'cast(null as ' ~ type ~ ')') -%}
      {%- endfor -%}
      {%- do dbt_analyze._rebuild_storage_table(name, values) -%}
    {%- elif st.present | length < expected | length -%}
      {%- set missing = [] -%}
      {%- for column, type in expected[st.present | length:] -%}
        {%- do missing.append(dbt_analyze._quote_identifier(column) ~ ' ' ~ type) -%}
      {%- endfor -%}
      {%- do run_query('alter table ' ~ dbt_analyze._storage_relation(name) ~ ' add columns (' ~ missing | join(', ')
                       ~ ')') -%}
    {%- endif -%}
    {%- do run_query('alter table ' ~ dbt_analyze._storage_relation(name) ~ ' set serdeproperties '
                     ~ dbt_analyze._storage_options()) -%}
  {%- endfor -%}
{% endmacro %}

{#- Storage of version 5 and older kept partition_states and one table per statistic kind: their
    rows move into statistics_history, every row kept. The old tables are first renamed <name>__v5
    (their names become views); the rows are copied into statistics_history__rebuilt, counted, and
    that takes its place; then the old tables go. Cut off halfway, the next run starts the copy again
    from the renamed tables. -#}
{% macro _merge_statistics_tables(existing) %}
  {%- set old = ['partition_states'] -%}
  {%- for kind in dbt_analyze._statistics_kinds() -%}{%- do old.append(kind ~ '_history') -%}{%- endfor -%}
  {%- if 'statistics_history' in existing -%}
    {%- for name in old if name ~ '__v5' in existing -%}
      {%- do run_query('drop table ' ~ dbt_analyze._storage_relation(name ~ '__v5')) -%}
    {%- endfor -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set kinds = {} -%}
  {%- for name in old -%}
    {%- set relation = dbt_analyze._storage_relation(name) -%}
    {%- if name in existing and name ~ '__v5' not in existing and dbt_analyze._is_table(relation) -%}
      {%- do run_query('alter table ' ~ relation ~ ' rename to ' ~ dbt_analyze._storage_relation(name ~ '__v5')) -%}
      {%- do kinds.update({name: true}) -%}
    {%- elif name ~ '__v5' in existing -%}
      {%- do kinds.update({name: true}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not kinds -%}{{ return(none) }}{%- endif -%}
  {%- set copy = dbt_analyze._storage_relation('statistics_history__rebuilt') -%}
  {%- do run_query('drop table if exists ' ~ copy) -%}
  {%- do dbt_analyze._create_storage_table('statistics_history', copy) -%}
  {%- set v5 = {} -%}
  {%- for name in old -%}
    {%- do v5.update({name: dbt_analyze._storage_relation(name ~ '__v5') if name in kinds
                      else '(' ~ dbt_analyze._null_row_sql(name) ~ ' where false)'}) -%}
  {%- endfor -%}
  {%- do run_query(dbt_analyze._merged_v5_rows_sql(copy, v5)) -%}
  {%- set counts = run_query("select (select count(*) from " ~ v5.table_statistics_history ~ "), (select count(*) from "
                             ~ v5.column_statistics_history
                             ~ "), (select count_if(column_name = '') from " ~ copy
                             ~ "), (select count_if(column_name <> '') from " ~ copy ~ ")")[0] -%}
  {%- if counts[0] != counts[2] or counts[1] != counts[3] -%}
    {%- do run_query('drop table ' ~ copy) -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: the upgrade of the statistics tables copied ' ~ counts[2] ~ ' of '
                                       ~ counts[0] ~ ' table rows and '
                                       ~ counts[3] ~ ' of ' ~ counts[1]
                                       ~ ' column rows: left as it was, nothing lost; run again when no run is writing') }}
  {%- endif -%}
  {%- do run_query('alter table ' ~ copy ~ ' rename to ' ~ dbt_analyze._storage_relation('statistics_history')) -%}
  {%- for name in kinds -%}
    {%- do run_query('drop table ' ~ dbt_analyze._storage_relation(name ~ '__v5')) -%}
  {%- endfor -%}
{% endmacro %}

{% macro _is_table(relation) %}
  {%- set st = namespace(table=true) -%}
  {%- for row in run_query('describe table extended ' ~ relation)
      if row[0] == 'Type' and (row[1] or '') | trim | upper == 'VIEW' -%}
    {%- set st.table = false -%}
  {%- endfor -%}
  {{ return(st.table) }}
{% endmacro %}

{% macro _null_row_sql(name) %}
  {%- set columns = [] -%}
  {%- for column, type in dbt_analyze._storage_columns(name) -%}
    {%- do columns.append('cast(null as ' ~ type ~ ') as ' ~ column) -%}
  {%- endfor -%}
  {{ return('select ' ~ columns | join(', ')) }}
{% endmacro %}

{#- The rows of version 5's tables (or of a statistics document: v5, a relation per table name) as
    statistics_history rows: each snapshot row with its statistic kinds' arrays; the rows of each
    table's latest run (a relation of run_id, table_schema, table_name) with the states they were
    derived from (older snapshots are history: no merge reads them again). -#}
{% macro _merged_v5_rows_sql(target, v5, latest=none) %}
  {%- set state = dbt_analyze._storage_columns('partition_states')[6:] -%}
  {%- set keys = 'run_id, table_schema, table_name, partition_spec, column_name' -%}
  {%- set st = namespace(table_columns=[], column_columns=[]) -%}
  {%- for column, type in dbt_analyze._storage_columns('statistics_history') -%}
    {%- set table_value = 'null' -%}
    {%- set column_value = 'null' -%}
    {%- if column.startswith('state_') -%}
      {%- set table_value = 's.' ~ column[6:] -%}
      {%- set column_value = table_value -%}
    {%- elif column in ('run_id', 'table_schema', 'table_name', 'partition_spec') -%}
      {%- set table_value = 't.' ~ column -%}{%- set column_value = 'c.' ~ column -%}
    {%- elif column == 'column_name' -%}{%- set table_value = "''" -%}{%- set column_value = 'c.column_name' -%}
    {%- elif column == 'partition_runs' -%}
      {%- set table_value = "case when t.partition_spec <> '' then null when t.partition_count is null then map('', t.run_id) else coalesce(p.partition_runs, map()) end" -%}
    {%- elif column in ('quantiles', 'histogram', 'top_values') -%}
      {%- set column_value = 'a.' ~ column -%}
    {%- elif column in dbt_analyze._storage_columns('table_statistics_history') | map('first') | list -%}
      {%- set table_value = 't.' ~ column -%}
      {%- set column_value = 'c.' ~ column if column in dbt_analyze._storage_columns('column_statistics_history')
                             | map('first') | list else 'null' -%}
    {%- elif column in dbt_analyze._storage_columns('column_statistics_history') | map('first') | list -%}
      {%- set column_value = 'c.' ~ column -%}
    {%- endif -%}
    {%- do st.table_columns.append(table_value ~ ' as ' ~ column) -%}
    {%- do st.column_columns.append(column_value ~ ' as ' ~ column) -%}
  {%- endfor -%}
  {%- if latest is none -%}
    {%- set latest -%}
      (select table_schema, table_name, max_by(run_id, event_at) as run_id from {{ dbt_analyze._storage_relation('analyze_run_events') }}
       where event = 'succeeded' group by 1, 2)
    {%- endset -%}
  {%- endif -%}
  {#- A row carries its state when it is of the latest run and a partition's (an unpartitioned table's own row included). -#}
  {%- set state_join -%}
    left join {{ latest }} latest on latest.run_id = {{ '{x}' }}.run_id and latest.table_schema = {{ '{x}' }}.table_schema and latest.table_name = {{ '{x}' }}.table_name
    left join {{ v5.partition_states }} s on s.run_id = {{ '{x}' }}.state_run_id and s.table_schema = {{ '{x}' }}.table_schema
      and s.table_name = {{ '{x}' }}.table_name and s.partition_spec = {{ '{x}' }}.partition_spec and s.column_name = {{ '{column}' }}
      and latest.run_id is not null and ({{ '{x}' }}.partition_spec <> '' or not coalesce(exists_partitions.partitioned, false))
  {%- endset -%}
  {%- set sql -%}
  insert into {{ target }}
  with partitioned as (
    {#- The runs of partitioned tables: their partitions' rows, or a table row with a partition count. -#}
    select run_id, table_schema, table_name,
           map_from_entries(collect_list(struct(partition_spec, run_id)) filter (where partition_spec <> '')) as partition_runs
    from {{ v5.table_statistics_history }} where partition_spec <> '' or partition_count is not null group by 1, 2, 3
  ),
  arrays as (
    select {{ keys }}, max(quantiles) as quantiles, max(histogram) as histogram, max(top_values) as top_values from (
      select {{ keys }}, array_sort(collect_list(struct(quantile, value))) as quantiles, null as histogram,
             null as top_values
      from {{ v5.column_quantiles_history }} group by {{ keys }}
      union all
      select {{ keys }}, null,
             array_sort(collect_list(struct(bin, lower_bound, upper_bound, row_count, distinct_count))), null
      from {{ v5.column_histograms_history }} group by {{ keys }}
      union all
      select {{ keys }}, null, null, array_sort(collect_list(struct(rank, value, frequency)))
      from {{ v5.column_top_values_history }} group by {{ keys }}
    ) group by {{ keys }}
  )
  select {{ st.table_columns | join(', ') }}
  from {{ v5.table_statistics_history }} t
  left join partitioned p
    on p.run_id = t.run_id and p.table_schema = t.table_schema and p.table_name = t.table_name
  left join (select distinct table_schema, table_name, true as partitioned from partitioned) exists_partitions
    on exists_partitions.table_schema = t.table_schema and exists_partitions.table_name = t.table_name
  {{ state_join | replace('{x}', 't') | replace('{column}', "''") }}
  union all
  select {{ st.column_columns | join(', ') }}
  from {{ v5.column_statistics_history }} c
  left join arrays a on a.run_id = c.run_id and a.table_schema = c.table_schema and a.table_name = c.table_name
    and a.partition_spec = c.partition_spec and a.column_name = c.column_name
  left join (select distinct table_schema, table_name, true as partitioned from partitioned) exists_partitions
    on exists_partitions.table_schema = c.table_schema and exists_partitions.table_name = c.table_name
  {{ state_join | replace('{x}', 'c') | replace('{column}', 'c.column_name') }}
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- Rewrites a storage table as `values` (its columns, in order) of its rows, in few files: into
    <name>__rebuilt, which then takes its place. The copy is checked to hold every row (a write
    meanwhile would be lost) before the table is dropped; a rebuild cut off halfway is finished
    (or undone) by _finish_interrupted_rebuild. Returns the rows. -#}
{% macro _rebuild_storage_table(name, values) %}
  {%- set table = dbt_analyze._storage_relation(name) -%}
  {%- set rebuilt = dbt_analyze._storage_relation(name ~ '__rebuilt') -%}
  {%- do run_query('drop table if exists ' ~ rebuilt) -%}
  {%- do dbt_analyze._create_storage_table(name, rebuilt) -%}
  {#- Each bucket's rows to one task, which writes them as one file sorted by table and run (the
      table's sort columns): a file and each of its Parquet row groups then hold a range of runs,
      so the reads by run id (a merge's states, a run's report) still skip the rest of the bucket's
      history after a compaction. -#}
  {%- do run_query('insert into ' ~ rebuilt ~ ' select ' ~ values | join(', ') ~ ' from ' ~ table ~ ' distribute by '
                   ~ dbt_analyze._table_bucket_sql('table_name')) -%}
  {%- set counts = run_query('select (select count(*) from ' ~ table ~ '), (select count(*) from ' ~ rebuilt
                             ~ ')')[0] -%}
  {%- if counts[0] != counts[1] -%}
    {%- do run_query('drop table ' ~ rebuilt) -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: rows were written to ' ~ name ~ ' while it was rebuilt ('
                                       ~ counts[0] ~ ' rows, '
                                       ~ counts[1]
                                       ~ ' copied): left as it was, nothing lost; run again when no run is writing') }}
  {%- endif -%}
  {#- What the tables' runs learned (_top_k_hints) goes with the rows. -#}
  {%- set hints = [] -%}
  {%- for row in run_query('show tblproperties ' ~ table) if row[0].startswith('dbt_analyze.top_k_tracked.') -%}
    {%- do hints.append(dbt_analyze._quote_literal(row[0]) ~ ' = ' ~ dbt_analyze._quote_literal(row[1])) -%}
  {%- endfor -%}
  {%- if hints -%}
    {%- do run_query('alter table ' ~ rebuilt ~ ' set tblproperties (' ~ hints | join(', ') ~ ')') -%}
  {%- endif -%}
  {%- do run_query('drop table ' ~ table) -%}
  {%- do run_query('alter table ' ~ rebuilt ~ ' rename to ' ~ table) -%}
  {{ return(counts[0] | int) }}
{% endmacro %}

{#- A rebuild cut off halfway: with the table gone, its complete copy takes its place; with both
    there, the copy (maybe incomplete) is dropped. -#}
{% macro _finish_interrupted_rebuild(name, existing) %}
  {%- if name ~ '__rebuilt' in existing -%}
    {%- if name in existing -%}
      {%- do run_query('drop table ' ~ dbt_analyze._storage_relation(name ~ '__rebuilt')) -%}
    {%- else -%}
      {%- do run_query('alter table ' ~ dbt_analyze._storage_relation(name ~ '__rebuilt') ~ ' rename to '
                       ~ dbt_analyze._storage_relation(name)) -%}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}

{#- Names (lower case) of the tables and views in a schema; none while the schema does not exist. -#}
{% macro _existing_tables(schema) %}
  {%- if schema | lower not in run_query('show schemas').columns[0].values() | map('lower') | list -%}
    {{ return([]) }}
  {%- endif -%}
  {{ return(run_query('show tables in ' ~ dbt_analyze._quote_identifier(schema)).columns[1].values() | map('lower')
            | list) }}
{% endmacro %}

{#- Raised whenever a storage table gains a column or an option: older statistics schemas are upgraded in place. -#}
{% macro _storage_version() %}
  {{ return('7') }}
{% endmacro %}

{#- One row per run: started, finished, status (running | succeeded | failed) and its metrics;
    of the events that match where (a `where` clause), else of every run. -#}
{% macro _analyze_runs_sql(where='') %}
  select run_id,
         max(invocation_id) as invocation_id,
         max(table_schema) as table_schema,
         max(table_name) as table_name,
         max(request) as request,
         min(event_at) as started_at,
         max(case when event in ('succeeded', 'unchanged', 'failed') then event_at end) as finished_at,
         case when max(case when event = 'failed' then 1 else 0 end) = 1 then 'failed'
              when max(case when event in ('succeeded', 'unchanged') then 1 else 0 end) = 1 then 'succeeded'
              else 'running' end as status,
         max(partitions_scanned) as targets_scanned,
         max(partitions_skipped) as partitions_skipped,
         max(rows_scanned) as rows_scanned,
         max(bytes_scanned) as bytes_scanned,
         max(sketch_bytes) as sketch_bytes,
         max(plan_ms) as plan_ms, max(scan_ms) as scan_ms, max(merge_ms) as merge_ms, max(publish_ms) as publish_ms,
         max(error) as error,
         max(notes) as notes,
         max(statements) as statements
  from {{ dbt_analyze._storage_relation('analyze_run_events') }}
  {{ where }}
  group by run_id
{% endmacro %}

{#- The columns of analyze_runs that a run's report shows (format_statistics). -#}
{% macro _reported_run_columns() %}
  {{ return(['status', 'targets_scanned', 'partitions_skipped', 'rows_scanned', 'bytes_scanned', 'sketch_bytes',
             'plan_ms', 'scan_ms', 'merge_ms', 'publish_ms', 'notes']) }}
{% endmacro %}

{#- A succeeded (or unchanged) run's row of analyze_runs as the run itself knows it, in
    _reported_run_columns: the metrics of its ending event (_event_sql's), and what it stored
    ([rows, bytes, sketch_bytes]). -#}
{% macro _run_metrics(metrics, own=none) %}
  {%- set known = {'status': 'succeeded', 'targets_scanned': metrics.partitions_scanned,
                   'rows_scanned': own[0] if own else none, 'bytes_scanned': own[1] if own else none,
                   'sketch_bytes': own[2] if own else none} -%}
  {%- set row = {} -%}
  {%- for column in dbt_analyze._reported_run_columns() -%}
    {%- do row.update({column: known[column] if column in known else metrics.get(column)}) -%}
  {%- endfor -%}
  {{ return(row) }}
{% endmacro %}

{#- The latest succeeded run of every table. -#}
{% macro _latest_runs_sql() %}
  select table_schema, table_name, max_by(run_id, event_at) as run_id
  from {{ dbt_analyze._storage_relation('analyze_run_events') }}
  where event = 'succeeded'
  group by table_schema, table_name
{% endmacro %}

{% macro _latest_run_id(table) %}
  {%- set found = run_query(dbt_analyze._latest_run_id_sql(table)) -%}
  {{ return(found[0][0] if found else none) }}
{% endmacro %}

{#- The query of the table's latest succeeded run (the run its current statistics come from). -#}
{% macro _latest_run_id_sql(table) %}
  {{ return('select max_by(run_id, event_at) from ' ~ dbt_analyze._storage_relation('analyze_run_events')
            ~ " where event = 'succeeded' and " ~ dbt_analyze._table_where_sql(table)) }}
{% endmacro %}

{#- The current rows of statistics_history: each table's rows ('') of its latest succeeded run,
    and the partition rows that run's partition_runs names (an unpartitioned table's own row);
    with runs_sql (a query of table_schema, table_name, run_id), of those runs instead; with
    table, of that table only (read from its bucket). -#}
{% macro _current_rows_sql(runs_sql=none, table=none) %}
  {%- set only = (' and ' ~ dbt_analyze._table_where_sql(table, 't.')) if table else '' -%}
  {%- set only_h = (' and ' ~ dbt_analyze._table_where_sql(table, 'h.')) if table else '' -%}
  {%- set runs_sql = runs_sql or dbt_analyze._latest_runs_sql() -%}
  {%- set table = dbt_analyze._storage_relation('statistics_history') -%}
  {%- set sql -%}
  select h.* from {{ table }} h
  join (
    select l.table_schema, l.table_name, '' as partition_spec, l.run_id,
           cast(null as map<string,string>) as column_types
    from ({{ runs_sql }}) l
    union all
    select t.table_schema, t.table_name, p.partition_spec, p.run_id, t.column_types
    from {{ table }} t left semi join ({{ runs_sql }}) l
      on t.run_id = l.run_id and t.table_schema = l.table_schema and t.table_name = l.table_name
    lateral view explode(t.partition_runs) p as partition_spec, run_id
    where t.partition_spec = '' and t.column_name = '' and p.partition_spec <> ''{{ only }}
  ) k on h.table_schema = k.table_schema and h.table_name = k.table_name and h.partition_spec = k.partition_spec and h.run_id = k.run_id
  where (k.column_types is null or h.column_name = '' or exists(map_entries(k.column_types), c -> c.key = h.column_name and c.value = h.data_type))
    {{- only_h }}
{%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- Refreshes what the current views read (see _refresh_storage). -#}
{% macro _refresh_current_view(view) %}
  {%- do dbt_analyze._refresh_storage(['statistics_history', 'analyze_run_events']) -%}
{% endmacro %}

{% macro _storage_tables() %}
  {{ return(['analyze_run_events', 'statistics_history', 'staleness_checks', 'column_statistics_estimated_history']) }}
{% endmacro %}

{#- The latest estimate of every estimated model's columns. -#}
{% macro _latest_estimates_sql() %}
  select e.*
  from {{ dbt_analyze._storage_relation('column_statistics_estimated_history') }} e
  join (select table_schema, table_name, max_by(estimate_id, estimated_at) as estimate_id
        from {{ dbt_analyze._storage_relation('column_statistics_estimated_history') }} group by table_schema,
        table_name) latest
    on e.estimate_id = latest.estimate_id and e.table_schema = latest.table_schema and e.table_name = latest.table_name
{% endmacro %}

{#- The latest staleness check of every analyzed table: per table ('') and partition, when its
    statistics were collected and whether its data changed since (fresh | stale | new | dropped). -#}
{% macro _table_staleness_sql() %}
  select c.table_schema, c.table_name, c.partition_spec, c.status, c.collected_at, c.checked_at
  from {{ dbt_analyze._storage_relation('staleness_checks') }} c
  join (select table_schema, table_name, max_by(check_id, checked_at) as check_id
        from {{ dbt_analyze._storage_relation('staleness_checks') }} group by table_schema, table_name) latest
    on c.check_id = latest.check_id and c.table_schema = latest.table_schema and c.table_name = latest.table_name
{% endmacro %}
