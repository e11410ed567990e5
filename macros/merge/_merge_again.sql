{#- Runs of one table at the same time (say, on different partitions) each merge the states they
    can see; a run that succeeded after this one read its states made this run's table rows miss
    its states. Then the table is merged again, as a run of its own, from the partitions that this
    run's and those runs' table rows map (the newest state of each), until no other run succeeded
    meanwhile, so the last table rows always count every succeeded state. `seen`: the runs that had
    succeeded when this run read its states. Writes the run's `succeeded` event first, with
    `metrics` and what the run itself stored: `own` ([rows, bytes, sketch_bytes, truncated]) when its write
    took it, else read by the event from the run's rows (m), and by the first check from the event.
    An unpartitioned table's run merges nothing stored: its rows are the whole table's as its scan
    saw it, whichever run succeeds last holds the current ones, and no other run's state can be
    missing from them. Nothing is checked; its own numbers, unless given, are read at once with
    the event.
    Returns {run_id: the run of the last table rows, own: [rows, bytes, sketch_bytes, truncated]}. -#}
{% macro _merge_again_after_concurrent_runs(plan, run, seen, with_sketch_statistics, metrics, own=none) %}
  {%- set table = plan.table -%}
  {%- set numbers = own or ['m.rows', 'm.bytes', 'm.sketch_bytes'] -%}
  {%- set event_metrics = dict(metrics) -%}
  {%- do event_metrics.update({'rows_scanned': numbers[0], 'bytes_scanned': numbers[1], 'sketch_bytes': numbers[2]}) -%}
  {%- set succeeded_sql = dbt_analyze._event_sql(run, 'succeeded', table, event_metrics,
                                                 from_sql=none if own else dbt_analyze._own_states_sql(table, run.run_id),
                                                 reads_after=0 if own and not table.partition_columns else 1) -%}
  {%- if not table.partition_columns and own is none -%}
    {%- set read = dbt_analyze._run_at_once([succeeded_sql, dbt_analyze._own_states_sql(table, run.run_id)])[1][0] -%}
    {{ return({'run_id': run.run_id, 'own': [read[0] | int, read[1] | int, read[2] | int, read[3]]}) }}
  {%- endif -%}
  {%- do run_query(succeeded_sql) -%}
  {%- if not table.partition_columns -%}{{ return({'run_id': run.run_id, 'own': own}) }}{%- endif -%}
  {%- set st = namespace(run_id=run.run_id, done=false, own=own, seen=seen + [run.run_id]) -%}
  {%- for attempt in range(5) if not st.done -%}
    {%- set found = run_query(dbt_analyze._concurrent_runs_sql(table, run, with_own=st.own is none))[0] -%}
    {%- if st.own is none -%}{%- set st.own = [found[1] | int, found[2] | int, found[3] | int, found[4]] -%}{%- endif -%}
    {%- set others = (found[0] or '').split(',') | select | reject('in', st.seen) | list -%}
    {%- if not others -%}
      {%- set st.done = true -%}
    {%- else -%}
      {%- set again = dbt_analyze._new_run({'merge_after': st.run_id}) -%}
      {{ log('dbt_analyze: ' ~ table.schema ~ '.' ~ table.identifier ~ ': run(s) ' ~ others | join(', ')
             ~ ' finished during the merge of '
             ~ st.run_id ~ ': merging again (' ~ again.run_id ~ ')', info=True) }}
      {%- do dbt_analyze._write_event(again, 'started', table) -%}
      {#- This connection may keep the tables as it first read them, without the other runs' rows (Thrift). -#}
      {%- do dbt_analyze._refresh_storage(['statistics_history', 'analyze_run_events']) -%}
      {%- set keys_sql = dbt_analyze._mapped_states_keys_sql(table, [st.run_id] + others) -%}
      {%- do dbt_analyze._run_statistics_write(dbt_analyze._statistics_select_sql(
            plan, again.run_id, [], {'keys_sql': keys_sql, 'run_ids': none}, with_sketch_statistics)) -%}
      {%- do dbt_analyze._write_event(again, 'succeeded', table,
                                      {'partitions_scanned': 0,
                                       'notes': 'merged again after concurrent run(s) ' ~ others | join(', ')}) -%}
      {%- set st.seen = st.seen + others + [again.run_id] -%}
      {%- set st.run_id = again.run_id -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'run_id': st.run_id, 'own': st.own}) }}
{% endmacro %}
