{#- A new run's id, its request as text for the events, and its start. -#}
{% macro _new_run(args) %}
  {%- set now = modules.datetime.datetime.utcnow() -%}
  {%- set printable = {} -%}
  {%- for key, value in args.items() -%}
    {#- A Relation (post-hooks pass `this`) is printed by its name; YAML dates as their text. -#}
    {%- do printable.update({key: value.render() if key == 'relation' and value is not string
                             else dbt_analyze._yaml_scalars(value)}) -%}
  {%- endfor -%}
  {{ return({'run_id': now.strftime('%Y%m%dT%H%M%S%f') ~ '-' ~ (invocation_id or 'local')[:8],
             'statements_at_start': dbt_analyze._statements_sent(),
             'request_text': tojson(printable), 'started': now,
             'dry_run': dbt_analyze._as_bool(args.get('dry_run', false))}) }}
{% endmacro %}

{#-
  One run: request → plan → rewrite → scan → states → merge → tables, shared by the run-operation
  (analyze_table) and the post-hook (analyze). Returns a summary dict. Its statements: the
  storage's properties, the table's describe (and partitions); the listing, the current states
  with the runs that have succeeded so far (no states in a full run of every column of an
  unpartitioned table), a `started` event and the top-k hints (at once); one INSERT that scans,
  merges and writes every statistic, and on a session takes the run's own numbers as it writes;
  a `succeeded` event and the check for runs that succeeded meanwhile (of a partitioned table; an
  unpartitioned one's own numbers, when the write could not take them, at once with the event);
  and, where its sketches cut a column's most common values, the hints that grow them (_grow_top_k).
-#}
{% macro _run_analyze(args) %}
  {%- set prepared = dbt_analyze._prepare_run(args) -%}
  {%- if prepared.done -%}{{ return(prepared.summary) }}{%- endif -%}
  {%- do dbt_analyze._write_run(prepared) -%}
  {{ return(dbt_analyze._finish_run(prepared)) }}
{% endmacro %}

{#- A run up to its write: request, plan, reads, the scan's choice and its SELECT. Returns
    {done: true, summary} for a run that ends here (a dry run, a table unchanged since its last
    run), else what _write_run and _finish_run take. shares_events (background runs of
    unpartitioned tables, written together: write_statistics_runs in python/src/dbt_analyze/background.py): the `started` event is not
    sent but returned as a row (started_row), and _write_run returns the `succeeded` one. -#}
{% macro _prepare_run(args, shares_events=false) %}
  {%- set run = dbt_analyze._new_run(args) -%}
  {%- set request = dbt_analyze._fit_to_engine(dbt_analyze._build_request(args, run), run) -%}
  {#- The plan's time starts once the engine has answered: a run-operation's first statement also
      starts Spark and its metastore (seconds), which is not planning. -#}
  {%- set plan_started = modules.datetime.datetime.utcnow() -%}
  {%- set plan = dbt_analyze._plan_target(request, run) -%}
  {#- Runs of one table never overlap: this one waits for a run of it still going beside the build. -#}
  {%- do dbt_analyze._await_statistics(plan.table) -%}
  {#- After the plan: a request refused for its table, columns or partitions creates no storage. -#}
  {%- if not run.dry_run -%}{%- do dbt_analyze._ensure_storage() -%}{%- endif -%}
  {%- set table = plan.table -%}
  {%- set name = table.schema ~ '.' ~ table.identifier -%}
  {#- The runs that have succeeded so far are those this run's merge can count (see
      _merge_again_after_concurrent_runs; an unpartitioned table's merges none): its `started`
      event need not come first. A full run of every column of an unpartitioned table reads no
      states: it rescans the one partition, merges nothing stored and keeps no column of the old state. -#}
  {%- set needs_states = table.partition_columns | length > 0 or not request.full or request.noscan
                         or plan.columns | length < table.data_columns | length -%}
  {#- What the table's runs learned about its top-k sketches, read beside the rest (a dry run's
      storage may not exist yet). -#}
  {%- set reads_hints = not run.dry_run
                        or 'statistics_history' in dbt_analyze._existing_tables(dbt_analyze._stats_schema()) -%}
  {%- set shares_events = shares_events and not run.dry_run and not table.partition_columns -%}
  {%- set read = dbt_analyze._read_listings_states_and([plan], run, ([] if run.dry_run or shares_events
                                                        else [dbt_analyze._event_sql(run, 'started', table)])
                                                        + ([dbt_analyze._top_k_hints_sql()] if reads_hints else []),
                                                        with_succeeded=table.partition_columns | length > 0,
                                                        read_states=needs_states) -%}
  {%- set hints = dbt_analyze._top_k_hints(read.others[-1] if reads_hints and read.others else none, table) -%}
  {%- set states = read.states[0] -%}
  {%- set schema_changes = dbt_analyze._schema_changes(plan, states) -%}
  {%- for change in schema_changes -%}{{ log('dbt_analyze: ' ~ name ~ ': ' ~ change, info=True) }}{%- endfor -%}
  {%- set choice = dbt_analyze._choose_scan(plan, states, request, read.top_k_tracked[0], hints) -%}
  {%- set to_scan = choice.to_scan -%}

  {%- if choice.changed and not run.dry_run and (adapter.dbt_analyze_may_hold_old_files is not defined
                                           or adapter.dbt_analyze_may_hold_old_files(table.schema,
                                               table.identifier)) -%}
    {#- The listing saw these partitions change; a Spark session that read the table before (a
        Thrift server's, a long-lived one) may still hold their old file lists, and a scan through
        them would store old statistics under the new files' fingerprint for good. -#}
    {%- do run_query('refresh table ' ~ table.quoted) -%}
  {%- endif -%}
  {%- if request.sample and to_scan and not run.dry_run -%}
    {%- do plan.update(dbt_analyze._plan_sample(plan, to_scan, request.sample)) -%}
  {%- endif -%}
  {%- set with_sketch_statistics = plan.scan_columns and request.sketches == 'full' -%}
  {%- set stored = dbt_analyze._stored_to_merge(plan, read.latest[0], read.merged[0], states, choice,
                                                schema_changes, with_sketch_statistics) -%}
  {#- A run that shares its events may write together, which needs no SELECT of its own: it is
      rendered when the run writes alone (_prepared_select). -#}
  {%- set select = none if shares_events
                   else dbt_analyze._statistics_select_sql(plan, run.run_id, to_scan, stored, with_sketch_statistics) -%}
  {%- set summary = {'run_id': run.run_id, 'table': name, 'scanned': to_scan, 'skipped': choice.skipped,
                     'dropped': choice.dropped,
                     'columns': plan.scan_columns | map(attribute='name') | list} -%}
  {%- if run.dry_run -%}
    {{ log('-- dbt_analyze dry run for ' ~ name ~ ': scan ' ~ to_scan | length ~ ' partition(s), skip '
           ~ choice.skipped | length, info=True) }}
    {%- set insert_sql = dbt_analyze._statistics_insert_sql(select) -%}
    {{ log(('' if to_scan else '-- nothing to scan;\n') ~ insert_sql ~ ';', info=True) }}
    {%- do summary.update({'sql': [insert_sql]}) -%}
    {{ return({'done': true, 'summary': summary}) }}
  {%- endif -%}

  {%- set plan_ms = dbt_analyze._elapsed_ms(plan_started) -%}
  {%- if not to_scan and not choice.dropped and not request.noscan and states -%}
    {{ log('dbt_analyze: ' ~ name ~ ' unchanged since its last analysis (' ~ choice.skipped | length
           ~ ' partition(s) skipped)', info=True) }}
    {#- The latest succeeded run, as the states read found it, holds the current statistics. A write
        to a table wipes its catalog statistics even when no file changed that we track: republish. -#}
    {%- set latest = read.latest[0] or dbt_analyze._latest_run_id(table) -%}
    {%- set publish_ms = dbt_analyze._publish_to_catalog(table, latest) if request.publish else none -%}
    {%- set metrics = {'partitions_scanned': 0, 'partitions_skipped': choice.skipped | length, 'plan_ms': plan_ms,
                       'publish_ms': publish_ms, 'notes': schema_changes | join('; ') or none} -%}
    {%- if shares_events -%}{%- do dbt_analyze._write_event(run, 'started', table) -%}{%- endif -%}
    {%- do dbt_analyze._write_event(run, 'unchanged', table, metrics) -%}
    {%- do summary.update({'status': 'unchanged', 'snapshot_run_id': latest,
                           'run_metrics': dbt_analyze._run_metrics(metrics)}) -%}
    {{ return({'done': true, 'summary': summary}) }}
  {%- endif -%}
  {{ return({'done': false, 'run': run, 'request': request, 'plan': plan, 'read': read, 'choice': choice,
             'select': select, 'summary': summary, 'plan_ms': plan_ms, 'schema_changes': schema_changes,
             'stored': stored, 'with_sketch_statistics': with_sketch_statistics, 'hints': hints, 'name': name,
             'started_row': dbt_analyze._event_row(run, 'started', table) if shares_events else none}) }}
{% endmacro %}

{#- A prepared run's write (scan, merge and every statistic in one INSERT), its catalog copy and its
    `succeeded` event: sent, or, where the run shares its events and the write took its own
    numbers, kept in prepared.succeeded_row for the batch's one INSERT. -#}
{% macro _write_run(prepared) %}
  {%- set scan_started = modules.datetime.datetime.utcnow() -%}
  {%- do dbt_analyze._log_write(prepared) -%}
  {%- set written = dbt_analyze._run_statistics_write(dbt_analyze._prepared_select(prepared),
                                                      dbt_analyze._runs_interpreted(prepared.plan, prepared.choice.to_scan)) -%}
  {%- do dbt_analyze._after_write(prepared, written, scan_started) -%}
{% endmacro %}

{#- A prepared run's SELECT of its write (_statistics_select_sql), rendered once, when first asked. -#}
{% macro _prepared_select(prepared) %}
  {%- if prepared.select is none -%}
    {%- do prepared.update({'select': dbt_analyze._statistics_select_sql(
          prepared.plan, prepared.run.run_id, prepared.choice.to_scan, prepared.stored,
          prepared.with_sketch_statistics)}) -%}
  {%- endif -%}
  {{ return(prepared.select) }}
{% endmacro %}

{#- Whether a prepared run may write together with others (_write_runs_together): a background
    run of an unpartitioned table that shares its events and scans its one partition (whose rows
    are then derived from that one state: _statistics_select_sql's single), on a session. Runs
    write together with those of the same sketches (with_sketch_statistics) only. -#}
{% macro _writes_together(prepared) %}
  {{ return(prepared.started_row is not none and prepared.choice.to_scan | length > 0
            and prepared.plan.scan_columns | length > 0 and adapter.dbt_analyze_insert_together is defined) }}
{% endmacro %}

{#- Prepared runs that may write together (_writes_together), all of the same sketches, written in
    one INSERT: each run's scan held in memory as one row (its column states as an array:
    _scan_sql's held_columns), with generated code or not by its own size (_runs_interpreted), and
    the merged rows of them all, with their arrays where the sketches are full, derived by one
    statement that reads each run and table from its rows
    (_merged_of_held_sql, _written_identity_sql): Spark plans the unpivot, the merge's projection
    and the heavy rows' half once, not once per run, and small and large tables' runs share them.
    That statement reads only the held rows, one per run, so it runs interpreted (unless a scan
    has a collated column). Returns each run's `written` for _after_write (in its order) and the
    write's start; a failure writes none of them. -#}
{% macro _write_runs_together(prepareds) %}
  {%- set scan_started = modules.datetime.datetime.utcnow() -%}
  {%- set held_sqls = [] -%}
  {%- set columns = [] -%}
  {%- set measures = {} -%}
  {%- set half_settings = [] -%}
  {%- set st = namespace(collated=false) -%}
  {%- for prepared in prepareds -%}
    {%- set index = loop.index0 -%}
    {%- do dbt_analyze._log_write(prepared) -%}
    {%- do held_sqls.append(dbt_analyze._scan_sql(prepared.plan, prepared.choice.to_scan, prepared.run.run_id,
                                                  dbt_analyze._written_identity_sql(prepared.plan, prepared.run.run_id))) -%}
    {%- do half_settings.append(dbt_analyze._statistics_write_settings(
          dbt_analyze._runs_interpreted(prepared.plan, prepared.choice.to_scan))) -%}
    {%- set st.collated = st.collated or dbt_analyze._scans_collated(prepared.plan) -%}
    {%- do columns.extend(prepared.plan.table.data_columns) -%}
    {%- for name, expression in dbt_analyze._own_numbers(prepared.run.run_id) -%}
      {%- do measures.update({name ~ '_' ~ index: expression}) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set first = prepareds[0] -%}
  {{ log('dbt_analyze: writing the statistics of ' ~ prepareds | length ~ ' runs in one statement: '
         ~ prepareds | map(attribute='name') | join(', '), info=True) }}
  {#- The rows' half over the runs' columns together: their types' renderings, each run's sketches' sizes. -#}
  {%- set plan = {'table': {'partition_columns': [], 'data_columns': columns},
                  'top_k_groups': dbt_analyze._top_k_groups_of_runs(prepareds)} -%}
  {%- set held = dbt_analyze._merged_view_name(first.run.run_id) ~ '_and_' ~ (prepareds | length - 1) -%}
  {%- set merged = '(' ~ dbt_analyze._merged_of_held_sql(plan, dbt_analyze._quote_identifier(held),
                                                           first.with_sketch_statistics) ~ ')' -%}
  {%- set own = adapter.dbt_analyze_insert_together(
        dbt_analyze._storage_relation('statistics_history'), held_sqls, held,
        dbt_analyze._statistics_rows_sql(plan, first.with_sketch_statistics, merged), measures,
        dbt_analyze._statistics_write_settings(not st.collated), half_settings) -%}
  {%- set written = [] -%}
  {%- for prepared in prepareds -%}
    {%- do written.append(dbt_analyze._written_numbers(own, '_' ~ loop.index0)) -%}
  {%- endfor -%}
  {{ return({'written': written, 'started': scan_started}) }}
{% endmacro %}

{#- A prepared run's log lines as its write starts. -#}
{% macro _log_write(prepared) %}
  {%- set plan, to_scan, name = prepared.plan, prepared.choice.to_scan, prepared.name -%}
  {%- if to_scan -%}
    {{ log('dbt_analyze: scanning ' ~ name ~ ': ' ~ (to_scan | length) ~ ' of ' ~ (plan.all_partitions | length)
           ~ ' partition(s), '
           ~ plan.scan_columns | length ~ ' column(s)'
           ~ (' [' ~ plan.scan_columns | map(attribute='name') | join(', ') ~ ']' if plan.scan_columns else '')
           ~ ('; quantiles, histograms and top values from a ' ~ ('%.3g' | format(100 * plan.sketch_rate))
              ~ '% sample of the rows' if plan.get('sketch_rate') else ''),
           info=True) }}
  {%- endif -%}
  {{ log('dbt_analyze: merging ' ~ name ~ ' (' ~ plan.all_partitions | length ~ ' partition state(s))'
         ~ (' in the same write' if to_scan else ''), info=True) }}
{% endmacro %}

{#- What follows a run's write (`written`: what it stored, as _run_statistics_write returns it):
    its catalog copy, its metrics and its `succeeded` event, sent or kept as a row. -#}
{% macro _after_write(prepared, written, scan_started) %}
  {%- set run, request, plan, choice = prepared.run, prepared.request, prepared.plan, prepared.choice -%}
  {%- set table, to_scan = plan.table, choice.to_scan -%}
  {%- set scan_ms = dbt_analyze._elapsed_ms(scan_started) -%}
  {%- set publish_ms = dbt_analyze._publish_to_catalog(table, run.run_id) if request.publish else none -%}
  {%- set metrics = {'partitions_scanned': to_scan | length, 'partitions_skipped': choice.skipped | length,
                     'plan_ms': prepared.plan_ms, 'scan_ms': scan_ms, 'publish_ms': publish_ms,
                     'notes': prepared.schema_changes | join('; ') or none} -%}
  {%- do prepared.update({'scan_ms': scan_ms, 'publish_ms': publish_ms, 'metrics': metrics}) -%}
  {%- if prepared.started_row and written -%}
    {#- An unpartitioned table's run checks for no concurrent run (_merge_again_after_concurrent_runs). -#}
    {%- set event_metrics = dict(metrics) -%}
    {%- do event_metrics.update({'rows_scanned': written[0], 'bytes_scanned': written[1], 'sketch_bytes': written[2]}) -%}
    {%- do prepared.update({'merged': {'run_id': run.run_id, 'own': written},
                            'succeeded_row': dbt_analyze._event_row(run, 'succeeded', table, event_metrics,
                                                                    reads_after=0)}) -%}
  {%- else -%}
    {%- do prepared.update({'merged': dbt_analyze._merge_again_after_concurrent_runs(
          plan, run, prepared.read.succeeded[0], prepared.with_sketch_statistics, metrics, written),
                            'succeeded_row': none}) -%}
  {%- endif -%}
{% endmacro %}

{#- A written run's end, once its `succeeded` event is stored: the top-k hints it learned, its log
    line and its summary. -#}
{% macro _finish_run(prepared) %}
  {%- set run, plan, choice, merged = prepared.run, prepared.plan, prepared.choice, prepared.merged -%}
  {%- set name, to_scan, summary = prepared.name, choice.to_scan, prepared.summary -%}
  {%- set plan_ms, scan_ms, publish_ms = prepared.plan_ms, prepared.scan_ms, prepared.publish_ms -%}
  {%- set own = merged.own -%}
  {%- if prepared.with_sketch_statistics -%}
    {%- do dbt_analyze._grow_top_k(plan, prepared.request, prepared.hints, own[3]) -%}
  {%- endif -%}
  {{ log('dbt_analyze: ' ~ name ~ ' analyzed: ' ~ own[0] ~ ' rows (' ~ own[1] ~ ' bytes) scanned in '
         ~ (to_scan | length) ~ ' partition(s), '
         ~ (choice.skipped | length) ~ ' skipped'
         ~ (', ' ~ choice.dropped | length ~ ' dropped' if choice.dropped else '') ~ '; sketches ' ~ own[2] ~ ' bytes'
         ~ ' (plan ' ~ plan_ms ~ ' ms, scan and merge ' ~ scan_ms ~ ' ms'
         ~ (', publish ' ~ publish_ms ~ ' ms' if publish_ms is not none else '') ~ ')', info=True) }}
  {%- do summary.update({'status': 'succeeded', 'rows_scanned': own[0] | int, 'snapshot_run_id': merged.run_id,
                         'run_metrics': dbt_analyze._run_metrics(prepared.metrics, own)}) -%}
  {{ return(summary) }}
{% endmacro %}
