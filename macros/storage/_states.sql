{#- The file listings and the current states of planned tables, from two queries at once (both
    only read; partitions kept elsewhere are listed after). Sets each plan's listing and returns,
    in the plans' order, the states each table's current statistics count, without sketches:
    {spec: {fingerprint, columns: {name: data_type}, sketches, collected_at, run_id, text_top_values:
    the columns whose top-k sketch holds text items}} (run_id: the run whose row holds the state),
    also of partitions dropped since (dbt_analyze.partition_states.read_states). -#}
{% macro _read_listings_and_states(plans, run) %}
  {{ return(dbt_analyze._read_listings_states_and(plans, run, []).states) }}
{% endmacro %}

{#- _read_listings_and_states with other statements of the statistics storage at the same time
    (reads, or an event's INSERT): {states, latest: per table, the run whose partition_runs the
    states are (or none), succeeded: with_succeeded, per table, the runs that have succeeded
    (_succeeded_runs_sql), merged: per table, the sketches of the merged state that the latest
    run's table rows carry (or none), others: each statement's rows, or none when there is no
    storage to read}.
    Without read_states, the listing and the others only: no states (a run that needs none). -#}
{% macro _read_listings_states_and(plans, run, others, with_succeeded=false, read_states=true) %}
  {%- if adapter.dbt_analyze_read_states is not defined -%}
    {{ dbt_analyze._fail(run, 'the dbt-analyze Python library is not installed where dbt runs'
                              ~ ' (pip install path/to/dbt_analyze/python): a run reads the states of its partitions with it') }}
  {%- endif -%}
  {%- set tables = plans | map(attribute='table') | list -%}
  {%- set states_sql = dbt_analyze._current_states_read_sql(tables, run, with_succeeded) if read_states else none -%}
  {#- The others run where there is storage: beside the states read, or without it by choice. -#}
  {%- set with_others = states_sql is not none or not read_states -%}
  {%- set results = dbt_analyze._run_listing(dbt_analyze._listing_branches(tables),
                                             ([states_sql] if states_sql else []) + (others if with_others else [])) -%}
  {%- set listings = dbt_analyze._parse_listings(tables, results[0]) -%}
  {%- do dbt_analyze._fit_listings_to_partitions(tables, plans | map(attribute='all_partitions') | list, listings) -%}
  {%- for listing in listings -%}{%- do plans[loop.index0].update({'listing': listing}) -%}{%- endfor -%}
  {#- Thousands of rows on a table of thousands of partitions: parsed by Python. -#}
  {%- set keys = [] -%}
  {%- for table in tables -%}{%- do keys.append([table.schema, table.identifier]) -%}{%- endfor -%}
  {%- set read = adapter.dbt_analyze_read_states(keys, results[1] if states_sql else []) -%}
  {%- do read.update({'others': results[(2 if states_sql else 1):] if with_others else none}) -%}
  {{ return(read) }}
{% endmacro %}

{#- The query of the current states of tables: the partitions that each table's latest succeeded
    run maps (partition_runs), at the run that holds each one's row, that latest run, and the
    sketches of the merged state its table rows carry (or null: _stored_to_merge); with_succeeded,
    also a row per table whose partition_spec is null and run_id the runs that have succeeded
    (_succeeded_runs_sql). None when there is nothing to read. -#}
{% macro _current_states_read_sql(tables, run, with_succeeded=false) %}
  {#- A dry run creates no storage: it may not exist yet (a real run has just ensured it, and
      refreshed it: _refresh_storage; a dry run refreshes what it reads here). -#}
  {%- if not tables or (run.dry_run
                        and 'statistics_history' not in dbt_analyze._existing_tables(dbt_analyze._stats_schema())) -%}
    {{ return(none) }}
  {%- endif -%}
  {%- if run.dry_run -%}
    {%- do dbt_analyze._refresh_storage(['statistics_history', 'analyze_run_events']) -%}
  {%- endif -%}
  {%- set filters = [] -%}
  {%- set state_filters = [] -%}
  {%- for table in tables -%}
    {%- do filters.append('(' ~ dbt_analyze._table_where_sql(table) ~ ')') -%}
    {%- do state_filters.append('(' ~ dbt_analyze._table_where_sql(table, 's.') ~ ')') -%}
  {%- endfor -%}
  {%- set history = dbt_analyze._storage_relation('statistics_history') -%}
  {%- set mapped = tables | selectattr('partition_columns') | list | length > 0 -%}
  {%- set latest -%}
    (select table_schema, table_name, max_by(run_id, event_at) as run_id from {{ dbt_analyze._storage_relation('analyze_run_events') }}
     where event = 'succeeded' and ({{ filters | join(' or ') }}) group by 1, 2)
  {%- endset -%}
  {%- set sql -%}
  select s.table_schema, s.table_name, s.partition_spec, s.column_name, s.data_type, s.state_file_count,
         s.state_size_bytes,
         s.state_files_modified_at, s.state_sketches, cast(s.state_collected_at as string), s.run_id,
         {{ dbt_analyze._text_items_sql('s.state_top_values_sketch') }},
         {{ 'k.mapped_by' if mapped else 'l.run_id' }}, {{ 'k.merged_sketches' if mapped else 'cast(null as string)' }},
         s.state_top_values_sketch.maxItemsTracked, s.state_sketch_rate
  from {{ history }} s
  {%- if mapped %}
  join (
    select t.table_schema, t.table_name, p.partition_spec, p.run_id, t.run_id as mapped_by,
           t.state_sketches as merged_sketches
    from {{ history }} t
    left semi join {{ latest }} l
      on t.run_id = l.run_id and t.table_schema = l.table_schema and t.table_name = l.table_name
    lateral view explode(t.partition_runs) p as partition_spec, run_id
    where ({{ filters | join(' or ') }}) and t.partition_spec = '' and t.column_name = ''
  ) k on s.table_schema = k.table_schema and s.table_name = k.table_name and s.partition_spec = k.partition_spec and s.run_id = k.run_id
  {%- else %}
  {#- An unpartitioned table's states are the rows of its latest run, which its table row maps '' to:
      one read of the history, not two. #}
  join {{ latest }} l on s.run_id = l.run_id and s.table_schema = l.table_schema and s.table_name = l.table_name
  {%- endif %}
  where ({{ state_filters | join(' or ') }}) and s.state_collected_at is not null
  {%- if with_succeeded %}
  union all
  select table_schema, table_name, null, null, null, null, null, null, null, null,
         concat_ws(',', collect_list(run_id)), null, null, null, null, null
  from {{ dbt_analyze._succeeded_runs_sql(tables, run) }}
  group by 1, 2
  {%- endif %}
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}
