{#-
  Storage: append-only parquet tables in the statistics schema, and views that show the current
  values. A run's rows count only once its `succeeded` event is written (the last write of a run),
  so a run that fails or is killed halfway changes no current statistic.

    analyze_run_events          started / succeeded / unchanged / failed events of every run
                                (unchanged: nothing to scan or merge, no snapshot written)
    partition_states            per run, partition and column: exact aggregates and sketches
    table_statistics_history    per successful run: the table's full snapshot (table + partitions)
    column_statistics_history   the same per column
    column_quantiles_history, column_histograms_history, column_top_values_history
                                the same, read off the merged sketches
    column_statistics_estimated_history   per estimate_statistics run: models' estimated columns
  Views (also models of the package, so they can be ref()'d): analyze_runs and, for every
  <name>_history table, <name> with the rows of each table's latest succeeded run (of the latest
  estimate for column_statistics_estimated).
  Every table is bucketed by table_name, so a run reads the history of its own table's bucket
  only (_table_where_sql).
-#}
{% macro _storage_columns(name) %}
  {%- set run = [('run_id', 'string')] -%}
  {%- set target = [('table_schema', 'string'), ('table_name', 'string'), ('partition_spec', 'string')] -%}
  {%- set tables = {
    'analyze_run_events': run + [('invocation_id', 'string'), ('table_schema', 'string'), ('table_name', 'string'),
        ('event', 'string'), ('event_at', 'timestamp'), ('request', 'string'),
        ('partitions_scanned', 'bigint'), ('partitions_skipped', 'bigint'), ('rows_scanned', 'bigint'),
        ('bytes_scanned', 'bigint'), ('plan_ms', 'bigint'), ('scan_ms', 'bigint'), ('merge_ms', 'bigint'),
        ('error', 'string'), ('sketch_bytes', 'bigint'), ('publish_ms', 'bigint'), ('notes', 'string')],
    'partition_states': run + target + [('column_name', 'string'), ('data_type', 'string'),
        ('row_count', 'bigint'), ('file_count', 'bigint'), ('size_bytes', 'bigint'), ('files_modified_at', 'string')]
        + dbt_analyze._state_fields() + [('sketches', 'string'), ('sample_rows', 'bigint'), ('collected_at', 'timestamp')],
    'table_statistics_history': run + target + [('row_count', 'bigint'), ('size_bytes', 'bigint'), ('file_count', 'bigint'),
        ('partition_count', 'bigint'), ('partitions_analyzed', 'bigint'), ('sampled', 'boolean'), ('collected_at', 'timestamp'), ('state_run_id', 'string')],
    'column_statistics_history': run + target + [('column_name', 'string'), ('data_type', 'string'),
        ('null_count', 'bigint'), ('distinct_count', 'bigint'), ('min_value', 'string'), ('max_value', 'string'),
        ('avg_len', 'double'), ('max_len', 'bigint'), ('true_count', 'bigint'), ('false_count', 'bigint'),
        ('mean', 'double'), ('stddev', 'double'), ('partitions_analyzed', 'bigint'), ('sampled', 'boolean'), ('collected_at', 'timestamp'),
        ('state_run_id', 'string')],
    'staleness_checks': [('check_id', 'string'), ('checked_at', 'timestamp'), ('table_schema', 'string'), ('table_name', 'string'),
        ('partition_spec', 'string'), ('status', 'string'), ('collected_at', 'timestamp')],
    'column_quantiles_history': run + target + [('column_name', 'string'), ('quantile', 'double'), ('value', 'string')],
    'column_histograms_history': run + target + [('column_name', 'string'), ('bin', 'int'), ('lower_bound', 'string'),
        ('upper_bound', 'string'), ('row_count', 'double'), ('distinct_count', 'bigint')],
    'column_top_values_history': run + target + [('column_name', 'string'), ('rank', 'int'), ('value', 'string'), ('frequency', 'bigint')],
    'column_statistics_estimated_history': [('estimate_id', 'string'), ('estimated_at', 'timestamp'), ('table_schema', 'string'),
        ('table_name', 'string'), ('column_name', 'string'), ('data_type', 'string'), ('row_count', 'bigint'), ('null_count', 'bigint'),
        ('distinct_count', 'bigint'), ('min_value', 'string'), ('max_value', 'string'), ('avg_len', 'double'), ('max_len', 'bigint'),
        ('accuracy', 'string'), ('derived_from', 'string')],
  } -%}
  {{ return(tables[name]) }}
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
    with one task per bucket, empty ones included, and a run makes about a dozen such reads (64
    buckets cost a run's plan read 0.70 s against 0.32 s with 8, 0.21 s with 1), while 8 still
    leave 7/8 of other tables' history unread. -#}
{% macro _table_bucket_count() %}{{ return(8) }}{% endmacro %}

{#- The bucket of a table_name, as Spark computes it for bucketed tables (murmur3 hash). -#}
{% macro _table_bucket_sql(name_sql) %}
  {{ return('pmod(hash(' ~ name_sql ~ '), ' ~ dbt_analyze._table_bucket_count() ~ ')') }}
{% endmacro %}

{#- `table_schema = ... and table_name = ...`: the rows of one table (a Relation or anything with
    schema and identifier), read from its bucket only; prefix: a table alias with its dot. -#}
{% macro _table_where_sql(table, prefix='') %}
  {{ return(prefix ~ 'table_schema = ' ~ dbt_analyze._quote_literal(table.schema) ~ ' and ' ~ prefix ~ 'table_name = ' ~ dbt_analyze._quote_literal(table.identifier)) }}
{% endmacro %}

{#- Creates a storage table (at its place, or under another name: a rebuild). Each bucket's files
    are sorted by table and run, so a compaction (one file per bucket) keeps each run's rows together. -#}
{% macro _create_storage_table(name, relation) %}
  {%- set columns = [] -%}
  {%- for column, type in dbt_analyze._storage_columns(name) -%}
    {%- do columns.append(dbt_analyze._quote_identifier(column) ~ ' ' ~ type) -%}
  {%- endfor -%}
  {%- set order = ['table_schema', 'table_name'] + (['run_id'] if 'run_id' in dbt_analyze._storage_columns(name) | map('first') | list else []) -%}
  {%- do dbt_analyze._create_storage_object('create table if not exists ' ~ relation ~ ' (' ~ columns | join(', ') ~ ') using parquet options ' ~ dbt_analyze._storage_options()
                   ~ ' clustered by (table_name) sorted by (' ~ order | join(', ') ~ ') into ' ~ dbt_analyze._table_bucket_count() ~ ' buckets') -%}
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
    {{ exceptions.raise_compiler_error('dbt_analyze: could not create the statistics storage: ' ~ error ~ ' (in: ' ~ sql[:200] ~ ' ...)') }}
  {%- endif -%}
{% endmacro %}

{#- Create what is missing: the schema, the storage tables and the current-value views. Refuses
    while compact_statistics rewrites the tables (unless called by it: compacting). dbt's threads
    share one process, and on a fresh schema the package's view models (pre-hooks) and other
    models (post-hooks) all arrive here at once: one at a time (a lock of the library), so the
    first creates the storage and the others find it. -#}
{% macro _ensure_storage(compacting=false) %}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- if adapter.dbt_analyze_one_at_a_time is defined -%}
    {%- do adapter.dbt_analyze_one_at_a_time('storage', dbt_analyze._create_missing_storage, compacting) -%}
  {%- else -%}
    {%- do dbt_analyze._create_missing_storage(compacting) -%}
  {%- endif -%}
  {%- do dbt_analyze._refresh_storage() -%}
  {{ return('') }}
{% endmacro %}

{#- A Spark Thrift Server gives each connection a Spark session of its own, and a session keeps
    the file lists of the tables it has read: another connection's writes (a run in another dbt
    process or thread, a compaction) do not refresh them. Read through them, the statistics tables
    would miss those runs' rows (a merge would take a partition's older state), or name files a
    compaction removed. So on such a connection the tables (`names`, else all) are refreshed before
    an operation reads them (_ensure_storage), before a merge again after concurrent runs, and by
    the read macros. dbt-spark's in-process session is one Spark session for all dbt threads,
    which its own writes keep current. -#}
{% macro _refresh_storage(names=none) %}
  {%- if not (adapter.dbt_analyze_is_session is defined and adapter.dbt_analyze_is_session()) -%}
    {%- for name in names or dbt_analyze._history_tables() + dbt_analyze._plain_tables() -%}
      {%- do run_query('refresh table ' ~ dbt_analyze._storage_relation(name)) -%}
    {%- endfor -%}
  {%- endif -%}
{% endmacro %}

{#- The views are defined with the tables (first use) and again by an upgrade, never otherwise:
    they are models of the package too, and a dbt thread replacing one (drop, then create) must
    not meet another thread that takes it for missing. `dbt run -s dbt_analyze` redefines them. -#}
{% macro _create_missing_storage(compacting) %}
  {%- set schema = dbt_analyze._stats_schema() -%}
  {%- do run_query('create schema if not exists ' ~ dbt_analyze._quote_identifier(schema)) -%}
  {%- set existing = run_query('show tables in ' ~ dbt_analyze._quote_identifier(schema)).columns[1].values() | map('lower') | list -%}
  {%- set events = dbt_analyze._storage_relation('analyze_run_events') -%}
  {%- set properties = {} -%}
  {%- for row in (run_query('show tblproperties ' ~ events) if 'analyze_run_events' in existing else []) -%}
    {%- do properties.update({row[0]: row[1]}) -%}
  {%- endfor -%}
  {%- set rebuilding = [] -%}
  {%- for name in existing if name.endswith('__rebuilt') -%}{%- do rebuilding.append(name) -%}{%- endfor -%}
  {%- if (properties.get('dbt_analyze.compacting') or rebuilding) and not compacting -%}
    {%- set since = ('compact_statistics started ' ~ properties['dbt_analyze.compacting']) if properties.get('dbt_analyze.compacting')
                    else ('unfinished rebuild: ' ~ rebuilding | join(', ')) -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: the statistics tables in ' ~ schema ~ ' are being compacted (' ~ since ~ '); run again when it ends. '
                                       ~ 'If that compaction was interrupted, run compact_statistics again: it finishes the work and lifts this block') }}
  {%- endif -%}
  {%- set created = [] -%}
  {%- for name in dbt_analyze._history_tables() + dbt_analyze._plain_tables() if name not in existing -%}
    {%- do created.append(name) -%}
    {%- do dbt_analyze._create_storage_table(name, dbt_analyze._storage_relation(name)) -%}
  {%- endfor -%}
  {#- Storage of an older version (the version is a property of analyze_run_events): every table
      gains the columns added since (older rows read NULL there), appended or by a rebuild when
      they belong in between, and every view is redefined. -#}
  {%- set version = dbt_analyze._storage_version() -%}
  {%- set upgrade = 'analyze_run_events' in existing and properties.get('dbt_analyze.storage_version') != version -%}
  {%- if upgrade -%}
    {%- for name in dbt_analyze._history_tables() + dbt_analyze._plain_tables() if name in existing -%}
      {%- set described = run_query('describe table extended ' ~ dbt_analyze._storage_relation(name)) -%}
      {%- set st = namespace(columns=true, present=[], bucketed=false, buckets=none) -%}
      {%- for row in described -%}
        {%- if not row[0] or row[0].startswith('#') -%}{%- set st.columns = false -%}
        {%- elif st.columns -%}{%- do st.present.append(row[0]) -%}
        {%- elif row[0] == 'Bucket Columns' and 'table_name' in row[1] -%}{%- set st.bucketed = true -%}
        {%- elif row[0] == 'Num Buckets' -%}{%- set st.buckets = row[1] | string | trim -%}
        {%- endif -%}
      {%- endfor -%}
      {%- set present = st.present -%}
      {%- set expected = dbt_analyze._storage_columns(name) -%}
      {%- if not st.bucketed or st.buckets != dbt_analyze._table_bucket_count() | string
            or present != (expected | map('first') | list)[:present | length] -%}
        {#- Storage of version 3 and older is not bucketed, version 4 has 64 buckets, or columns
            were added in between (the writes are positional): the table is rebuilt. -#}
        {%- set values = [] -%}
        {%- for column, type in expected -%}
          {%- do values.append(dbt_analyze._quote_identifier(column) if column in present else 'cast(null as ' ~ type ~ ')') -%}
        {%- endfor -%}
        {%- do dbt_analyze._rebuild_storage_table(name, values) -%}
      {%- elif present | length < expected | length -%}
        {%- set missing = [] -%}
        {%- for column, type in expected[present | length:] -%}
          {%- do missing.append(dbt_analyze._quote_identifier(column) ~ ' ' ~ type) -%}
        {%- endfor -%}
        {%- do run_query('alter table ' ~ dbt_analyze._storage_relation(name) ~ ' add columns (' ~ missing | join(', ') ~ ')') -%}
      {%- endif -%}
      {#- Storage of version 2 and older wrote with SET around each write: the options now go on the table. -#}
      {%- do run_query('alter table ' ~ dbt_analyze._storage_relation(name) ~ ' set serdeproperties ' ~ dbt_analyze._storage_options()) -%}
    {%- endfor -%}
    {{ log('dbt_analyze: statistics tables in ' ~ schema ~ ' upgraded to storage version ' ~ version, info=True) }}
  {%- endif -%}
  {%- if created or upgrade -%}
    {%- set views = {'analyze_runs': dbt_analyze._analyze_runs_sql(), 'table_staleness': dbt_analyze._table_staleness_sql(),
                     'column_statistics_estimated': dbt_analyze._latest_estimates_sql()} -%}
    {%- for history in dbt_analyze._history_tables() -%}
      {%- do views.update({history[:-8]: dbt_analyze._current_rows_sql(history)}) -%}
    {%- endfor -%}
    {%- for name, select_sql in views.items() -%}
      {%- do dbt_analyze._create_storage_object('create or replace view ' ~ dbt_analyze._storage_relation(name) ~ ' as ' ~ select_sql) -%}
    {%- endfor -%}
    {%- do run_query('alter table ' ~ events ~ " set tblproperties ('dbt_analyze.storage_version' = '" ~ version ~ "')") -%}
  {%- endif -%}
  {{ return('') }}
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
  {%- do run_query('insert into ' ~ rebuilt ~ ' select ' ~ values | join(', ') ~ ' from ' ~ table ~ ' distribute by ' ~ dbt_analyze._table_bucket_sql('table_name')) -%}
  {%- set counts = run_query('select (select count(*) from ' ~ table ~ '), (select count(*) from ' ~ rebuilt ~ ')')[0] -%}
  {%- if counts[0] != counts[1] -%}
    {%- do run_query('drop table ' ~ rebuilt) -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: rows were written to ' ~ name ~ ' while it was rebuilt (' ~ counts[0] ~ ' rows, '
                                       ~ counts[1] ~ ' copied): left as it was, nothing lost; run again when no run is writing') }}
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
      {%- do run_query('alter table ' ~ dbt_analyze._storage_relation(name ~ '__rebuilt') ~ ' rename to ' ~ dbt_analyze._storage_relation(name)) -%}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}

{#- Names (lower case) of the tables and views in a schema; none while the schema does not exist. -#}
{% macro _existing_tables(schema) %}
  {%- if schema | lower not in run_query('show schemas').columns[0].values() | map('lower') | list -%}
    {{ return([]) }}
  {%- endif -%}
  {{ return(run_query('show tables in ' ~ dbt_analyze._quote_identifier(schema)).columns[1].values() | map('lower') | list) }}
{% endmacro %}

{#- Raised whenever a storage table gains a column or an option: older statistics schemas are upgraded in place. -#}
{% macro _storage_version() %}
  {{ return('5') }}
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
         max(notes) as notes
  from {{ dbt_analyze._storage_relation('analyze_run_events') }}
  {{ where }}
  group by run_id
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

{% macro _current_rows_sql(history) %}
  select h.*
  from {{ dbt_analyze._storage_relation(history) }} h
  join ({{ dbt_analyze._latest_runs_sql() }}) latest
    on h.run_id = latest.run_id and h.table_schema = latest.table_schema and h.table_name = latest.table_name
{% endmacro %}

{#- Refreshes what the current view `view` reads (_current_rows_sql): its history table and the
    runs' events (see _refresh_storage). -#}
{% macro _refresh_current_view(view) %}
  {%- do dbt_analyze._refresh_storage([view ~ '_history', 'analyze_run_events']) -%}
{% endmacro %}

{#- Tables holding one snapshot per succeeded run; each has a current view named without _history. -#}
{% macro _history_tables() %}
  {{ return(['table_statistics_history', 'column_statistics_history', 'column_quantiles_history',
             'column_histograms_history', 'column_top_values_history']) }}
{% endmacro %}

{#- Storage tables that are not snapshots of analyze runs. -#}
{% macro _plain_tables() %}
  {{ return(['analyze_run_events', 'partition_states', 'staleness_checks', 'column_statistics_estimated_history']) }}
{% endmacro %}

{#- The latest estimate of every estimated model's columns. -#}
{% macro _latest_estimates_sql() %}
  select e.*
  from {{ dbt_analyze._storage_relation('column_statistics_estimated_history') }} e
  join (select table_schema, table_name, max_by(estimate_id, estimated_at) as estimate_id
        from {{ dbt_analyze._storage_relation('column_statistics_estimated_history') }} group by table_schema, table_name) latest
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
