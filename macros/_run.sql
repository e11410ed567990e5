{#-
  One run: request → plan → rewrite → scan → states → merge → tables. Shared by the
  run-operation (analyze_table) and the post-hook (analyze). Returns a summary dict.
-#}
{% macro _new_run(args) %}
  {%- set now = modules.datetime.datetime.utcnow() -%}
  {%- set printable = {} -%}
  {%- for key, value in args.items() -%}
    {#- A Relation (post-hooks pass `this`) is printed by its name; YAML dates as their text. -#}
    {%- do printable.update({key: value.render() if key == 'relation' and value is not string else dbt_analyze._yaml_scalars(value)}) -%}
  {%- endfor -%}
  {{ return({'run_id': now.strftime('%Y%m%dT%H%M%S%f') ~ '-' ~ (invocation_id or 'local')[:8],
             'request_text': tojson(printable), 'started': now, 'dry_run': dbt_analyze._as_bool(args.get('dry_run', false))}) }}
{% endmacro %}

{#- Raise a clear error; unless this is a dry run, record the run as failed first. Validation
    happens before any statistic is written, so a failed run changes nothing current. -#}
{% macro _fail(run, message, table=none) %}
  {%- if run and not run.dry_run and execute -%}
    {%- do dbt_analyze._ensure_storage() -%}
    {%- do dbt_analyze._write_event(run, 'failed', table, {'error': message}) -%}
  {%- endif -%}
  {{ exceptions.raise_compiler_error('dbt_analyze: ' ~ message) }}
{% endmacro %}

{% macro _write_event(run, event, table=none, metrics={}) %}
  {%- set values = [] -%}
  {%- for column, type in dbt_analyze._storage_columns('analyze_run_events') -%}
    {%- if column == 'run_id' -%}{%- set value = dbt_analyze._quote_literal(run.run_id) -%}
    {%- elif column == 'invocation_id' -%}{%- set value = dbt_analyze._quote_literal(invocation_id) -%}
    {%- elif column == 'table_schema' -%}{%- set value = dbt_analyze._quote_literal(table.schema if table else none) -%}
    {%- elif column == 'table_name' -%}{%- set value = dbt_analyze._quote_literal(table.identifier if table else none) -%}
    {%- elif column == 'event' -%}{%- set value = dbt_analyze._quote_literal(event) -%}
    {%- elif column == 'event_at' -%}{%- set value = 'current_timestamp()' -%}
    {%- elif column == 'request' -%}{%- set value = dbt_analyze._quote_literal(run.request_text) -%}
    {%- elif type == 'string' -%}{%- set value = dbt_analyze._quote_literal(metrics.get(column)) -%}
    {%- else -%}{%- set value = 'cast(' ~ (metrics.get(column) if metrics.get(column) is not none else 'null') ~ ' as ' ~ type ~ ')' -%}
    {%- endif -%}
    {%- do values.append(value) -%}
  {%- endfor -%}
  {%- do run_query('insert into ' ~ dbt_analyze._storage_relation('analyze_run_events') ~ ' values (' ~ values | join(', ') ~ ')') -%}
{% endmacro %}

{% macro _elapsed_ms(since) %}
  {%- set delta = modules.datetime.datetime.utcnow() - since -%}
  {{ return((delta.total_seconds() * 1000) | round | int) }}
{% endmacro %}

{#- The file listings and the current states of planned tables, from two queries at once (both
    only read; partitions kept elsewhere are listed after). Sets each plan's listing and returns,
    in the plans' order, what the statistics tables hold for each table now, without sketches:
    {spec: {fingerprint, columns: {name: data_type}, sketches, run_ids}} for the newest state of
    each partition and column, also of partitions and columns dropped or retyped since (run_ids:
    the runs those states come from, which the merge then reads alone). -#}
{% macro _read_listings_and_states(plans, run) %}
  {%- set tables = plans | map(attribute='table') | list -%}
  {%- set states_sql = dbt_analyze._current_states_read_sql(plans, run) -%}
  {%- set results = dbt_analyze._run_listing(dbt_analyze._listing_branches(tables), [states_sql] if states_sql else []) -%}
  {%- set listings = dbt_analyze._parse_listings(tables, results[0]) -%}
  {%- do dbt_analyze._fit_listings_to_partitions(tables, plans | map(attribute='all_partitions') | list, listings) -%}
  {%- for listing in listings -%}{%- do plans[loop.index0].update({'listing': listing}) -%}{%- endfor -%}
  {{ return(dbt_analyze._parse_current_states(plans, results[1] if states_sql else [])) }}
{% endmacro %}

{#- The query of the current states of the plans' tables (none when there is nothing to read). -#}
{% macro _current_states_read_sql(plans, run) %}
  {#- A dry run creates no storage: it may not exist yet (a real run has just ensured it, and
      refreshed it: _refresh_storage; a dry run refreshes what it reads here). -#}
  {%- if not plans or (run.dry_run and 'partition_states' not in dbt_analyze._existing_tables(dbt_analyze._stats_schema())) -%}
    {{ return(none) }}
  {%- endif -%}
  {%- if run.dry_run -%}{%- do dbt_analyze._refresh_storage(['partition_states', 'analyze_run_events']) -%}{%- endif -%}
  {{ return('select table_schema, table_name, partition_spec, column_name, data_type, file_count, size_bytes, files_modified_at, sketches, cast(collected_at as string), run_id from ('
            ~ dbt_analyze._current_states_sql(plans[0], run.run_id, as_stored=true, tables=plans | map(attribute='table') | list) ~ ')') }}
{% endmacro %}

{#- A partition's state is what its newest scan stored: a scan covers every column that has
    statistics, so a column's newer state of an older run than the partition's is of a column the
    table no longer has (dropped, or dropped and added back): it is left out, and is not reported
    as a schema change on every run again. -#}
{% macro _parse_current_states(plans, rows) %}
  {%- set found = [] -%}
  {%- set position = {} -%}
  {%- for plan in plans -%}
    {%- do found.append({}) -%}
    {%- do position.update({tojson([plan.table.schema, plan.table.identifier]): loop.index0}) -%}
  {%- endfor -%}
  {%- set columns = [] -%}
  {%- for row in rows -%}
    {%- set states = found[position[tojson([row[0], row[1]])]] -%}
    {%- if row[2] not in states -%}{%- do states.update({row[2]: {'columns': {}, 'fingerprint': none, 'sketches': none, 'collected_at': none, 'run_ids': [], 'run_id': none}}) -%}{%- endif -%}
    {%- if row[3] == '' -%}
      {%- do states[row[2]].update({'fingerprint': [row[5] | int, row[6] | int, row[7]], 'sketches': row[8], 'collected_at': row[9], 'run_id': row[10]}) -%}
      {%- if row[10] not in states[row[2]].run_ids -%}{%- do states[row[2]].run_ids.append(row[10]) -%}{%- endif -%}
    {%- else -%}
      {%- do columns.append([states[row[2]], row[3], row[4], row[10]]) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for state, column, data_type, run_id in columns if state.run_id in (none, run_id) -%}
    {%- do state.columns.update({column: data_type}) -%}
    {%- if run_id not in state.run_ids -%}{%- do state.run_ids.append(run_id) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}

{% macro _run_analyze(args) %}
  {%- set run = dbt_analyze._new_run(args) -%}
  {%- set request = dbt_analyze._fit_to_engine(dbt_analyze._build_request(args, run), run) -%}
  {#- The plan's time starts once the engine has answered: a run-operation's first statement also
      starts Spark and its metastore (seconds), which is not planning. -#}
  {%- set plan_started = modules.datetime.datetime.utcnow() -%}
  {%- set plan = dbt_analyze._plan_target(request, run) -%}
  {%- set table = plan.table -%}
  {%- set name = table.schema ~ '.' ~ table.identifier -%}
  {%- if not run.dry_run -%}{%- do dbt_analyze._ensure_storage() -%}{%- endif -%}
  {#- Runs of this table that succeed from here on are not in this run's merge: see
      _merge_again_after_concurrent_runs. -#}
  {%- set merge_mark = dbt_analyze._server_now() if not run.dry_run else none -%}
  {%- set states = dbt_analyze._read_listings_and_states([plan], run)[0] -%}
  {%- set schema_changes = dbt_analyze._schema_changes(plan, states) -%}
  {%- for change in schema_changes -%}{{ log('dbt_analyze: ' ~ name ~ ': ' ~ change, info=True) }}{%- endfor -%}

  {#- Columns: the requested ones and every column that already has statistics (a rescanned
      partition's state replaces the old one whole, so no column's statistics go stale). -#}
  {%- set scan_columns = [] -%}
  {%- set stated = {} -%}
  {%- for spec, state in states.items() if spec in plan.all_partitions -%}{%- do stated.update(state.columns) -%}{%- endfor -%}
  {%- for column in table.data_columns if column in plan.columns or stated.get(column.name) == column.data_type -%}
    {%- do scan_columns.append(column) -%}
  {%- endfor -%}

  {#- Partitions: the selected ones that are new or changed (by the file listing), or all with full. -#}
  {%- set status = dbt_analyze._partition_status(plan, states, scan_columns, request.sketches) -%}
  {%- set to_scan = [] -%}
  {%- set skipped = [] -%}
  {%- for spec in plan.selected_partitions -%}
    {%- if request.noscan or (status[spec] == 'fresh' and not request.full) -%}
      {%- do skipped.append(spec) -%}
    {%- else -%}
      {%- do to_scan.append(spec) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set dropped = [] -%}
  {%- for spec, value in status.items() if value == 'dropped' -%}{%- do dropped.append(spec) -%}{%- endfor -%}
  {%- do plan.update({'scan_columns': scan_columns, 'sketches': request.sketches,
                      'scan_everything': to_scan | length == plan.all_partitions | length}) -%}

  {%- if to_scan and not run.dry_run -%}
    {#- The listing saw these partitions change; Spark may still hold their old file lists (a
        long-lived session or Thrift server whose table another application wrote), and a scan
        through them would store old statistics under the new files' fingerprint for good. -#}
    {%- do run_query('refresh table ' ~ table.quoted) -%}
  {%- endif -%}
  {%- if request.sample and to_scan and not run.dry_run -%}
    {%- do plan.update(dbt_analyze._plan_sample(plan, to_scan, request.sample)) -%}
  {%- endif -%}
  {%- set current_run_ids = [] -%}
  {%- for spec, state in states.items() if spec in plan.all_partitions -%}{%- do current_run_ids.extend(state.run_ids) -%}{%- endfor -%}
  {%- set merge = dbt_analyze._merge_statements(plan, run.run_id, scan_columns and request.sketches == 'full', current_run_ids) -%}
  {%- set states_sql = dbt_analyze._scan_sql(plan, to_scan, run.run_id) if to_scan else none -%}
  {%- set store_sql = 'insert into ' ~ dbt_analyze._storage_relation('partition_states') -%}
  {%- if to_scan and plan.scan_everything -%}
    {#- This run's states are then all the current states: the scan is cached as the merge's states
        view, and the merge stores them from there while it writes the statistics (it does not
        read them back from history). -#}
    {%- set spread = dbt_analyze._states_spread(to_scan | length, scan_columns | length) -%}
    {#- One Spark partition is reached without a shuffle (the scan's aggregate ends in a shuffle). -#}
    {%- set hint = 'COALESCE(1)' if spread == 1 else 'REPARTITION(' ~ spread ~ ', partition_spec, column_name)' -%}
    {%- set scan_sqls = [] -%}
    {%- do merge.update({'states_sql': 'select /*+ ' ~ hint ~ ' */ * from (' ~ states_sql ~ ')', 'cached_by_scan': true,
                         'merge_sqls': [store_sql ~ ' select * from ' ~ merge.states_view] + merge.merge_sqls}) -%}
  {%- else -%}
    {%- set scan_sqls = [store_sql ~ '\n' ~ states_sql] if to_scan else [] -%}
  {%- endif -%}
  {%- set summary = {'run_id': run.run_id, 'table': name, 'scanned': to_scan, 'skipped': skipped, 'dropped': dropped,
                     'columns': scan_columns | map(attribute='name') | list} -%}
  {%- if run.dry_run -%}
    {{ log('-- dbt_analyze dry run for ' ~ name ~ ': scan ' ~ to_scan | length ~ ' partition(s), skip ' ~ skipped | length, info=True) }}
    {%- set statements = scan_sqls + [dbt_analyze._cache_view_sql(merge.states_view, merge.states_sql)] + merge.merge_sqls -%}
    {{ log(('' if to_scan else '-- nothing to scan;\n') ~ statements | join(';\n') ~ ';', info=True) }}
    {%- do summary.update({'sql': statements}) -%}
    {{ return(summary) }}
  {%- endif -%}

  {%- set plan_ms = dbt_analyze._elapsed_ms(plan_started) -%}
  {%- do dbt_analyze._write_event(run, 'started', table) -%}
  {%- if not to_scan and not dropped and not request.noscan and states -%}
    {{ log('dbt_analyze: ' ~ name ~ ' unchanged since its last analysis (' ~ skipped | length ~ ' partition(s) skipped)', info=True) }}
    {#- A write to a table wipes its catalog statistics even when no file changed that we track: republish. -#}
    {%- set publish_ms = dbt_analyze._publish_to_catalog(table, dbt_analyze._latest_run_id(table)) if request.publish else none -%}
    {%- do dbt_analyze._write_event(run, 'unchanged', table, {'partitions_scanned': 0, 'partitions_skipped': skipped | length, 'plan_ms': plan_ms,
                                                              'publish_ms': publish_ms, 'notes': schema_changes | join('; ') or none}) -%}
    {%- do summary.update({'status': 'unchanged'}) -%}
    {{ return(summary) }}
  {%- endif -%}

  {%- set scan_started = modules.datetime.datetime.utcnow() -%}
  {%- set st = namespace(rows=0, bytes=0) -%}
  {%- if to_scan -%}
    {{ log('dbt_analyze: scanning ' ~ name ~ ': ' ~ (to_scan | length) ~ ' of ' ~ (plan.all_partitions | length) ~ ' partition(s), '
           ~ scan_columns | length ~ ' column(s)' ~ (' [' ~ scan_columns | map(attribute='name') | join(', ') ~ ']' if scan_columns else ''), info=True) }}
    {%- for sql in scan_sqls -%}{%- do run_query(sql) -%}{%- endfor -%}
    {%- if merge.cached_by_scan -%}{%- do dbt_analyze._cache_view(merge.states_view, merge.states_sql) -%}{%- endif -%}
  {%- endif -%}
  {%- set scan_ms = dbt_analyze._elapsed_ms(scan_started) -%}
  {%- set merge_started = modules.datetime.datetime.utcnow() -%}
  {{ log('dbt_analyze: merging ' ~ name ~ ' (' ~ plan.all_partitions | length ~ ' partition state(s))', info=True) }}
  {%- set scanned = dbt_analyze._execute_merge(merge, run.run_id) -%}
  {%- set st.rows = scanned.rows -%}
  {%- set st.bytes = scanned.bytes -%}
  {%- set sketch_bytes = scanned.sketch_bytes -%}
  {%- set merge_ms = dbt_analyze._elapsed_ms(merge_started) -%}
  {%- set publish_ms = dbt_analyze._publish_to_catalog(table, run.run_id) if request.publish else none -%}
  {%- do dbt_analyze._write_event(run, 'succeeded', table, {
        'partitions_scanned': to_scan | length, 'partitions_skipped': skipped | length, 'rows_scanned': st.rows,
        'bytes_scanned': st.bytes, 'sketch_bytes': sketch_bytes, 'plan_ms': plan_ms, 'scan_ms': scan_ms, 'merge_ms': merge_ms,
        'publish_ms': publish_ms, 'notes': schema_changes | join('; ') or none}) -%}
  {%- set snapshot_run_id = dbt_analyze._merge_again_after_concurrent_runs(plan, run, merge_mark, scan_columns and request.sketches == 'full') -%}
  {{ log('dbt_analyze: ' ~ name ~ ' analyzed: ' ~ st.rows ~ ' rows (' ~ st.bytes ~ ' bytes) scanned in ' ~ (to_scan | length) ~ ' partition(s), '
         ~ (skipped | length) ~ ' skipped' ~ (', ' ~ dropped | length ~ ' dropped' if dropped else '') ~ '; sketches ' ~ sketch_bytes ~ ' bytes'
         ~ ' (plan ' ~ plan_ms ~ ' ms, scan ' ~ scan_ms ~ ' ms, merge ' ~ merge_ms ~ ' ms' ~ (', publish ' ~ publish_ms ~ ' ms' if publish_ms is not none else '') ~ ')', info=True) }}
  {%- do summary.update({'status': 'succeeded', 'rows_scanned': st.rows, 'snapshot_run_id': snapshot_run_id}) -%}
  {{ return(summary) }}
{% endmacro %}

{#- The merge of a run: the current states are read once (states_sql, cached as a temporary view
    named after the run) and every merge statement reads them from there. With run_ids, the states
    of those runs and of this one are read (see _current_states_sql); without, of every succeeded
    run. A scan of every partition caches itself as the states instead (cached_by_scan). -#}
{% macro _merge_statements(plan, run_id, with_sketch_statistics, run_ids=none) %}
  {%- set states_view = dbt_analyze._quote_identifier('dbt_analyze_states_' ~ modules.re.sub('[^0-9A-Za-z]', '_', run_id)) -%}
  {{ return({'states_view': states_view, 'cached_by_scan': false,
             'states_sql': dbt_analyze._current_states_sql(plan, run_id, with_sketches=true, run_ids=run_ids),
             'merge_sqls': dbt_analyze._merge_sql(plan, run_id, states_view)
                           + (dbt_analyze._sketch_statistics_sql(plan, run_id, states_view) if with_sketch_statistics else [])}) }}
{% endmacro %}

{#- Runs a merge: caches the current states (unless the scan did), writes the table's snapshot
    from them and measures what the run itself stored (the statements at once: _run_independent),
    and drops the cache. Returns {rows, bytes, sketch_bytes} of the run's own states. -#}
{% macro _execute_merge(merge, run_id) %}
  {%- if not merge.cached_by_scan -%}{%- do dbt_analyze._cache_view(merge.states_view, merge.states_sql) -%}{%- endif -%}
  {%- set own_sql = "select coalesce(sum(if(column_name = '', row_count, 0)), 0), coalesce(sum(if(column_name = '', size_bytes, 0)), 0),"
                    ~ ' coalesce(sum(coalesce(length(ndv_sketch), 0) + coalesce(length(quantile_sketch), 0) + coalesce(length(top_values_sketch.sketch), 0)), 0)'
                    ~ ' from ' ~ merge.states_view ~ ' where run_id = ' ~ dbt_analyze._quote_literal(run_id) -%}
  {%- set own = dbt_analyze._run_independent([own_sql] + merge.merge_sqls)[0][0] -%}
  {#- Dropping a temporary view also drops its cache. -#}
  {%- do run_query('drop view if exists ' ~ merge.states_view) -%}
  {{ return({'rows': own[0] | int, 'bytes': own[1] | int, 'sketch_bytes': own[2] | int}) }}
{% endmacro %}

{#- Statements that do not depend on each other (each writes its own table, or only reads), all
    at once where the connection allows it (dbt-spark's session, through the library), else one
    after another. Returns each statement's rows, in the statements' order. With missing_paths (file
    listings, see _run_listing), a statement that Spark stops at a path that does not exist gives
    {missing_path} instead of rows (through the library, on any connection). -#}
{% macro _run_independent(statements, missing_paths=false, settings=[]) %}
  {%- if not statements -%}{{ return([]) }}{%- endif -%}
  {%- set results = adapter.dbt_analyze_run_concurrently(statements, missing_paths, settings)
                    if (statements | length > 1 or missing_paths) and adapter.dbt_analyze_run_concurrently is defined else false -%}
  {%- if results is sameas false -%}
    {%- set results = [] -%}
    {%- for sql in statements -%}{%- do results.append(run_query(sql).rows) -%}{%- endfor -%}
  {%- endif -%}
  {{ return(results) }}
{% endmacro %}

{#- select_sql's rows cached as the temporary view `view`. On dbt-spark's session the library makes
    the view from a DataFrame, whose analyzed plan Spark keeps; a view made in SQL keeps its text,
    which every statement that reads the view analyzes again (0.07-0.12 s for the current states). -#}
{% macro _cache_view(view, select_sql) %}
  {%- set cached = adapter.dbt_analyze_cache_view(view, select_sql) if adapter.dbt_analyze_cache_view is defined else false -%}
  {%- if not cached -%}{%- do run_query(dbt_analyze._cache_view_sql(view, select_sql)) -%}{%- endif -%}
{% endmacro %}

{#- The same in SQL (the Thrift path, and what a dry run prints). -#}
{% macro _cache_view_sql(view, select_sql) %}
  {{ return('cache table ' ~ view ~ ' as ' ~ select_sql) }}
{% endmacro %}

{% macro _server_now() %}
  {{ return(run_query('select cast(current_timestamp() as string)')[0][0]) }}
{% endmacro %}

{#- Runs of one table at the same time (say, on different partitions) each merge the states they
    can see; a run that finished after this one planned made this snapshot miss its states. Then
    the table is merged again, as a run of its own, until no other run finished meanwhile, so the
    last snapshot always holds every succeeded state. Returns the run id of that last snapshot. -#}
{% macro _merge_again_after_concurrent_runs(plan, run, merge_mark, with_sketch_statistics) %}
  {%- set table = plan.table -%}
  {%- set st = namespace(run_id=run.run_id, mark=merge_mark, done=false) -%}
  {%- for attempt in range(5) if not st.done -%}
    {#- The mark joins as a row, not a literal: see _this_run_sql. -#}
    {%- set others = run_query("select concat_ws(', ', collect_list(run_id)) from " ~ dbt_analyze._storage_relation('analyze_run_events')
                               ~ ' cross join (values (cast(' ~ dbt_analyze._quote_literal(st.mark) ~ ' as timestamp))) as merge_mark(at)'
                               ~ " where event = 'succeeded' and " ~ dbt_analyze._table_where_sql(table) ~ ' and run_id <> ' ~ dbt_analyze._quote_literal(st.run_id)
                               ~ ' and event_at >= merge_mark.at')[0][0] -%}
    {%- if not others -%}
      {%- set st.done = true -%}
    {%- else -%}
      {%- set again = dbt_analyze._new_run({'merge_after': st.run_id}) -%}
      {{ log('dbt_analyze: ' ~ table.schema ~ '.' ~ table.identifier ~ ': run(s) ' ~ others ~ ' finished during the merge of '
             ~ st.run_id ~ ': merging again (' ~ again.run_id ~ ')', info=True) }}
      {%- do dbt_analyze._write_event(again, 'started', table) -%}
      {#- This connection may keep the states as it first read them, without the other runs' (Thrift). -#}
      {%- do dbt_analyze._refresh_storage(['partition_states']) -%}
      {%- set merge = dbt_analyze._merge_statements(plan, again.run_id, with_sketch_statistics) -%}
      {%- set st.mark = dbt_analyze._server_now() -%}
      {%- do dbt_analyze._execute_merge(merge, again.run_id) -%}
      {%- do dbt_analyze._write_event(again, 'succeeded', table, {'partitions_scanned': 0, 'notes': 'merged again after concurrent run(s) ' ~ others}) -%}
      {%- set st.run_id = again.run_id -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(st.run_id) }}
{% endmacro %}

{#- What changed in the columns of the table's partitions since their states were taken, as
    sentences for the log and the run's notes. States of a dropped or retyped column are never
    merged with new ones: the merge reads only states whose column type is today's. -#}
{% macro _schema_changes(plan, states) %}
  {%- set types = {} -%}
  {%- for column in plan.table.data_columns -%}{%- do types.update({column.name: column.data_type}) -%}{%- endfor -%}
  {%- set stored = {} -%}
  {%- for spec, state in states.items() if spec in plan.all_partitions -%}
    {%- for column, data_type in state.columns.items() if types.get(column) != data_type -%}
      {%- do stored.setdefault(column, []).append(data_type) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set changes = [] -%}
  {%- for column, old_types in stored | dictsort -%}
    {%- if column not in types -%}
      {%- do changes.append("column '" ~ column ~ "' was dropped: its statistics are left out") -%}
    {%- else -%}
      {%- do changes.append("column '" ~ column ~ "' changed type from " ~ old_types | unique | join(', ') ~ ' to ' ~ types[column]
                            ~ ': statistics of the old type (' ~ old_types | length ~ ' partition state(s)) are not merged with new ones') -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(changes) }}
{% endmacro %}

{#- {spec: fresh | stale | new | dropped} for every partition of the table, and for partitions
    that are gone but still counted in the table's current statistics (dropped: once a merge has
    left them out, their states are history, and the table is not stale for them again): fresh
    when the partition's files (count, sizes, newest modification) are those its state was taken
    from and the state covers `columns` with their current types (and the sketches asked for). -#}
{% macro _partition_status(plan, states, columns, sketches='basic') %}
  {%- set status = {} -%}
  {%- for spec in plan.all_partitions -%}
    {%- set state = states.get(spec) -%}
    {%- set files = plan.listing.get(spec, {'file_count': 0, 'size_bytes': 0, 'modified_at': none}) -%}
    {%- if state is none or state.fingerprint is none -%}
      {%- do status.update({spec: 'new'}) -%}
    {%- else -%}
      {%- set st = namespace(fresh=state.fingerprint == [files.file_count, files.size_bytes, files.modified_at]
                                  and (sketches == 'basic' or state.sketches == 'full')) -%}
      {%- for column in columns if state.columns.get(column.name) != column.data_type -%}{%- set st.fresh = false -%}{%- endfor -%}
      {%- do status.update({spec: 'fresh' if st.fresh else 'stale'}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set gone = states.keys() | reject('in', plan.all_partitions) | list -%}
  {%- if gone -%}
    {%- for spec in dbt_analyze._counted_partitions(plan.table, gone) -%}{%- do status.update({spec: 'dropped'}) -%}{%- endfor -%}
  {%- endif -%}
  {{ return(status) }}
{% endmacro %}

{#- Which of `specs` the table's current statistics (its latest succeeded run) count. -#}
{% macro _counted_partitions(table, specs) %}
  {%- set quoted = [] -%}
  {%- for spec in specs -%}{%- do quoted.append(dbt_analyze._quote_literal(spec)) -%}{%- endfor -%}
  {{ return(run_query('select partition_spec from ' ~ dbt_analyze._storage_relation('table_statistics_history') ~ ' where ' ~ dbt_analyze._table_where_sql(table)
                      ~ ' and partition_spec in (' ~ quoted | join(', ') ~ ') and run_id = (' ~ dbt_analyze._latest_run_id_sql(table) ~ ')')
                       .columns[0].values() | list) }}
{% endmacro %}

{#- Which partitions to sample and how much: {sample: {spec: fraction}, exact_rows: {spec: rows},
    singletons: {spec: {column: f1}}}. Row counts stay exact: they come from a count(*), which
    Parquet answers from file footers. Partitions smaller than the sample are scanned whole. -#}
{% macro _plan_sample(plan, specs, sample) %}
  {%- set spec_sql = dbt_analyze._partition_spec_sql(plan.table.partition_columns) -%}
  {#- The spec is named: dbt reads a column without a name (an unpartitioned table's spec '') as None. -#}
  {%- set counts = run_query('select ' ~ spec_sql ~ ' as partition_spec, count(1) from ' ~ plan.table.quoted ~ ' ' ~ dbt_analyze._scan_filter_sql(plan, specs, none)
                             ~ dbt_analyze._group_by_partitions_sql(plan.table)) -%}
  {%- set exact_rows = {} -%}
  {%- set fractions = {} -%}
  {%- for row in counts -%}
    {%- set rows = row[1] | int -%}
    {%- set fraction = (sample.percent / 100.0) if 'percent' in sample else (sample.rows / rows if rows else 1.0) -%}
    {%- do exact_rows.update({row[0]: rows}) -%}
    {%- if fraction < 1.0 -%}{%- do fractions.update({row[0]: fraction}) -%}{%- endif -%}
  {%- endfor -%}
  {%- set result = {'sample': fractions, 'exact_rows': exact_rows, 'singletons': {}} -%}
  {%- if fractions -%}
    {%- set sql = dbt_analyze._singletons_query_sql(plan, specs, fractions) -%}
    {%- for row in (run_query(sql) if sql else []) if row[0] in fractions -%}
      {%- do result.singletons.setdefault(row[0], {}).update({row[1]: row[2] | int}) -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(result) }}
{% endmacro %}

{% macro _group_by_partitions_sql(table) %}
  {%- set columns = [] -%}
  {%- for column in table.partition_columns -%}{%- do columns.append(dbt_analyze._quote_identifier(column)) -%}{%- endfor -%}
  {{ return(' group by ' ~ columns | join(', ') if columns else '') }}
{% endmacro %}
