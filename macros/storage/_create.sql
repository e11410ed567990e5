{#- Creating the storage, and keeping a session's view of it current. -#}

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

{#- Refuses while a compaction blocks the storage, as _ensure_storage does: a batch of background
    runs checks again before its first write, since their prepares may have checked long before. -#}
{% macro _refuse_if_compacting() %}
  {%- do dbt_analyze._refuse_while_compacting(dbt_analyze._storage_properties() or {}, [], false) -%}
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
    {%- for name, select_sql in dbt_analyze._storage_views().items() -%}
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

{#- Refreshes what the current views read (see _refresh_storage). -#}
{% macro _refresh_current_view(view) %}
  {%- do dbt_analyze._refresh_storage(['statistics_history', 'analyze_run_events']) -%}
{% endmacro %}

{#- Names (lower case) of the tables and views in a schema; none while the schema does not exist. -#}
{% macro _existing_tables(schema) %}
  {%- if schema | lower not in run_query('show schemas').columns[0].values() | map('lower') | list -%}
    {{ return([]) }}
  {%- endif -%}
  {{ return(run_query('show tables in ' ~ dbt_analyze._quote_identifier(schema)).columns[1].values() | map('lower')
            | list) }}
{% endmacro %}
