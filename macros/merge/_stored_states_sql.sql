{#- The stored states a run's merge takes besides its scan. -#}

{#- What a run's merge takes besides its scan (_stored_states_sql's `stored`). A run that only
    adds partitions to a table whose latest table rows carry its merged state (`merged_sketches`,
    with the sketches this run merges) takes that state, one per column, and merges it with the new
    partitions' alone: none of the table's partitions changed (a state of text top values is
    stale: _partition_status) or was dropped, no column changed, nothing is sampled. Any other run
    takes the states of the partitions the latest run (`latest`) maps, less the scanned and the
    dropped ones, read by the runs that hold them. -#}
{% macro _stored_to_merge(plan, latest, merged_sketches, states, choice, schema_changes, with_sketch_statistics) %}
  {%- set scanned = dbt_analyze._spec_set(choice.to_scan) -%}
  {%- set stored_runs = [] -%}
  {%- for spec in plan.all_partitions if spec in states and spec not in scanned -%}
    {%- do stored_runs.append(states[spec].run_id) -%}
  {%- endfor -%}
  {%- if not stored_runs -%}{{ return({'keys_sql': none, 'run_ids': [], 'keys_in_plan': true, 'one_map': true}) }}{%- endif -%}
  {%- set only_added = choice.to_scan and not (choice.to_scan | select('in', states) | list)
                       and not choice.dropped and not schema_changes and not plan.get('sample') -%}
  {%- if only_added and merged_sketches in (['full'] if with_sketch_statistics else ['full', 'basic']) -%}
    {{ return({'merged_run': latest}) }}
  {%- endif -%}
  {{ return({'keys_sql': dbt_analyze._mapped_states_keys_sql(plan.table, [latest], choice.to_scan + choice.dropped),
             'run_ids': stored_runs | unique | list, 'keys_in_plan': true, 'one_map': true}) }}
{% endmacro %}

{#- The current states the merge takes besides this run's scan, in the columns of partition_states
    with represents (how many partitions a state stands for) and runs (the partitions it maps to
    the runs that hold their rows): the newest state of each partition and column in
    stored.keys_sql (a relation of partition_spec and run_id: _mapped_states_keys_sql), of columns
    whose type is unchanged and, unless stored.keys_in_plan (the keys leave out the partitions
    dropped since), of partitions that exist now. With run_ids, only the files of those runs are
    read (Parquet skips the rest of the table's history). Keys from one table row (stored.one_map)
    name one run per partition, whose row of each column is the one state: no ranking then, which
    would sort the sketches. With stored.merged_run, the merged states of that run's table rows
    instead, one per column (_stored_to_merge). -#}
{% macro _stored_states_sql(plan, stored) %}
  {%- set column_filters = ["s.column_name = ''"] -%}
  {%- for column in plan.table.data_columns + plan.get('column_groups', []) -%}
    {%- do column_filters.append('(s.column_name = ' ~ dbt_analyze._quote_literal(column.name) ~ ' and s.data_type = '
                                 ~ dbt_analyze._quote_literal(column.data_type) ~ ')') -%}
  {%- endfor -%}
  {%- if stored.get('merged_run') -%}
    {%- set columns = [] -%}
    {%- for column, type in dbt_analyze._storage_columns('partition_states') -%}
      {%- do columns.append(column if loop.index0 < 6 else 'state_' ~ column ~ ' as ' ~ column) -%}
    {%- endfor -%}
    {{ return('select ' ~ columns | join(', ') ~ ', partitions_analyzed as represents,'
              ~ ' coalesce(map_entries(partition_runs), array()) as runs from '
              ~ dbt_analyze._storage_relation('statistics_history') ~ ' s where '
              ~ dbt_analyze._table_where_sql(plan.table, 's.') ~ ' and s.run_id = '
              ~ dbt_analyze._quote_literal(stored.merged_run)
              ~ " and s.partition_spec = '' and s.state_sketches is not null and ("
              ~ column_filters | join(' or ') ~ ')') }}
  {%- endif -%}
  {%- set partition_filter = none if stored.get('keys_in_plan')
                             else 's.partition_spec in (' ~ (dbt_analyze._quote_literals(plan.all_partitions) | join(', ')
                                                             or 'null') ~ ')' -%}
  {%- set run_ids = dbt_analyze._quote_literals((stored.run_ids or []) | unique | sort) -%}
  {%- set ranked = not stored.get('one_map') -%}
  {%- set sql -%}
  select {{ dbt_analyze._storage_columns('partition_states') | map('first') | join(', ') }}, 1 as represents,
         array(struct(partition_spec, run_id)) as runs from (
    select *{% if ranked %}, row_number() over (partition by partition_spec, column_name order by collected_at desc, run_id desc) as _rank{% endif %}
    from ({{ dbt_analyze._partition_states_sql() }}) s
    where {{ dbt_analyze._table_where_sql(plan.table, 's.') }}
      and {{ ('s.run_id in (' ~ run_ids | join(', ') ~ ')') if stored.keys_sql and stored.run_ids is not none
          else ('true' if stored.keys_sql else 'false') }}
      {%- if partition_filter %}
      and {{ partition_filter }}
      {%- endif %}
      and ({{ column_filters | join(' or ') }})
      {%- if stored.keys_sql %}
      and (s.partition_spec, s.run_id) in (select partition_spec, run_id from {{ stored.keys_sql }})
      {%- endif %}
  ){% if ranked %} where _rank = 1{% endif %}
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- The keys (partition_spec, run_id) of stored states, as a relation: the partitions that the
    table rows of `run_ids` map (partition_runs), each to the run that holds its row, except
    `excluded`. A run takes them from the table rows of the latest run its states read saw, so a
    merge of thousands of partitions names none of them in its SQL. -#}
{% macro _mapped_states_keys_sql(table, run_ids, excluded=[]) %}
  {%- set excluded_specs = dbt_analyze._quote_literals(excluded | unique | sort) -%}
  {{ return('(select p.partition_spec, p.run_id from ' ~ dbt_analyze._storage_relation('statistics_history') ~ ' t'
            ~ ' lateral view explode(t.partition_runs) p as partition_spec, run_id where '
            ~ dbt_analyze._table_where_sql(table, 't.')
            ~ " and t.partition_spec = '' and t.column_name = '' and t.run_id in ("
            ~ dbt_analyze._quote_literals(run_ids) | join(', ') ~ ')'
            ~ (' and p.partition_spec not in (' ~ excluded_specs | join(', ') ~ ')' if excluded_specs else '')
            ~ ') as keys') }}
{% endmacro %}
