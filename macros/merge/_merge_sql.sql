{#-
  The merge, and the run's one write: the SELECT of a single INSERT into statistics_history
  (_statistics_insert_sql, or the write's own on a session: _run_statistics_write). It scans the
  partitions to scan (the rewrite: _scan_sql), takes the current states of the others (stored),
  and writes, with no rescan:
    partition rows  each scanned partition's table and column rows, derived from its own state,
                    which they carry (state_*): the stored partitions keep the rows they have
    table rows      the table ('') merged from every partition's state: rows, size and file count
                    from today's listing, partition_runs naming the run of each partition's current
                    row; a column's row only when every partition has a state of it. They carry
                    the merged state (state_*, no collected_at: no partition's), which a run that
                    only adds partitions takes instead of every partition's (_stored_to_merge)
  An unpartitioned table's one partition is the table: its rows carry its state, and a run that
  scans it has nothing stored to merge: each row comes from its one state as it is (single), with
  no aggregate and so no shuffle.
  Column rows hold their quantiles, histogram bins and top values as arrays, read off the merged
  KLL and top-k sketches. Exact statistics add up; NDV is the union of HLL sketches; min/max are
  compared as values of the column's type; the stddev is pooled from per-partition means and M2.
  Returns the SELECT (sql) and its two halves: the merged groups (merged_sql, named merged_view
  in rows_sql) and the rows derived from them (rows_sql), which a session runs one after the other
  where the arrays make the rows' half heavy (in_two: _run_statistics_write).
-#}
{% macro _statistics_select_sql(plan, run_id, specs, stored, with_sketch_statistics) %}
  {%- set table = plan.table -%}
  {%- set partitioned = table.partition_columns | length > 0 -%}
  {%- set single = not partitioned and specs | length > 0 -%}
  {%- set state_columns = dbt_analyze._storage_columns('partition_states') -%}
  {%- set names = state_columns | map('first') | list -%}
  {%- set run = dbt_analyze._quote_literal(run_id) -%}
  {%- set merged_view = 'dbt_analyze_merged_' ~ modules.re.sub('[^0-9A-Za-z]', '_', run_id) -%}
  {%- set merged_rows = dbt_analyze._quote_identifier(merged_view) -%}
  {#- Each state also counts the partitions it stands for, and maps them to the runs that hold
      their rows (a table's merged state stands for every partition its table row maps). -#}
  {%- set sources = [] if single else ['select ' ~ (names + ['represents', 'runs']) | join(', ') ~ ' from stored'] -%}
  {%- if specs and not single -%}
    {%- do sources.insert(0, 'select *, 1 as represents, array(struct(partition_spec, run_id)) as runs from ('
                             ~ dbt_analyze._scan_sql(plan, specs, run_id) ~ ')') -%}
  {%- endif -%}
  {%- set ctes -%}
  {%- if single %}
  {#- The one state is the table's: its rows are the scan's as they are, and its listing row
      holds the run's numbers. -#}
  with states as ({{ dbt_analyze._scan_sql(plan, specs, run_id) }}),
  {{ merged_rows }} as ({{ dbt_analyze._merged_rows_sql(plan, none, "''", '1', with_sketch_statistics) }})
  {%- else %}
  with this_run as (select * from {{ dbt_analyze._run_numbers_sql(plan) }}),
  stored as ({{ dbt_analyze._stored_states_sql(plan, stored) }}),
  states as ({{ sources | join(' union all ') }}),
  {#- partition_key: a scanned partition's spec, '' for the others' states; the table is the
      grouping set without it. -#}
  prepared as (
    select *, {{ dbt_analyze._sample_values_sql() }} as sample_values,
           sum(value_sum) over (partition by column_name) / nullif(sum(value_count) over (partition by column_name), 0) as table_mean,
           if(run_id = {{ run }}, partition_spec, '') as partition_key
    from states
  ),
  merged as (
    {%- if partitioned %}
    {{ dbt_analyze._merged_rows_sql(plan,
                                    'grouping sets ((partition_key, column_name, data_type), (column_name, data_type))',
                                    "coalesce(partition_key, '')", 'grouping(partition_key)', with_sketch_statistics) }}
    {%- else %}
    {{ dbt_analyze._merged_rows_sql(plan, 'column_name, data_type', "''", '1', with_sketch_statistics) }}
    {%- endif %}
  ),
  {#- The merged groups beside the run's numbers; a table row also when there is no state at all. -#}
  {{ merged_rows }} as (select d.*, m.* from this_run d left join merged m on true)
  {%- endif %}
  {%- endset -%}
  {%- set rows_sql = dbt_analyze._statistics_rows_sql(plan, run_id, with_sketch_statistics, merged_rows) -%}
  {{ return({'sql': ctes ~ '\n' ~ rows_sql, 'merged_sql': ctes ~ '\nselect * from ' ~ merged_rows,
             'merged_view': merged_view, 'rows_sql': rows_sql, 'in_two': with_sketch_statistics}) }}
{% endmacro %}

{% macro _statistics_insert_sql(select) %}
  {{ return('insert into ' ~ dbt_analyze._storage_relation('statistics_history') ~ '\n' ~ select.sql) }}
{% endmacro %}

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
  {%- for column in plan.table.data_columns -%}
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

{#- One aggregate of the prepared states by `group_by` (each scanned partition's, and the table's):
    the table or partition row (column_name '') and each column's, with the first of each state
    field (a partition's group holds its one state) and, with sketch statistics, the merged
    sketches. The partition-level group of the states not scanned (partition_key '') is not
    written: its sketches are left unmerged (FILTER). Without group_by, each state is its own
    group: every aggregate is its argument, no aggregate is planned, and the rows are read straight
    off the scan's (states), with no level between that Spark's analyzer would resolve in passes
    of its own. -#}
{% macro _merged_rows_sql(plan, group_by, spec_sql, is_table, with_sketch_statistics) %}
  {%- set data_types = plan.table.data_columns | map(attribute='data_type') | list -%}
  {%- set default_size = dbt_analyze._default_size_sql(data_types) -%}
  {%- set single = group_by is none -%}
  {%- set agg = {} -%}
  {%- for name in ['sum', 'min', 'max', 'first', 'bool_or'] -%}
    {%- do agg.update({name: '' if single else name}) -%}
  {%- endfor -%}
  {#- grouping(): a FILTER sees the states' own partition_key, not the one the table's set leaves out. -#}
  {%- set merge = "grouping(partition_key) = 1 or partition_key <> ''" if plan.table.partition_columns else 'true' -%}
  {%- set ndv_union = 'ndv_sketch' if single else 'hll_union_agg(ndv_sketch, true) filter (where ' ~ merge ~ ')' -%}
  {%- set ndv = 'hll_sketch_estimate(' ~ ndv_union ~ ')' -%}
  {#- The spread of the partitions' means about the table's, which pools their M2. -#}
  {%- set between_partitions = 'sum(value_count * pow(value_sum / nullif(value_count, 0) - table_mean, 2))' -%}
  {%- set values = agg.sum ~ '(value_count)' -%}
  {%- set sample_values = dbt_analyze._sample_values_sql() if single else 'sum(sample_values)' -%}
  {%- set singletons = agg.sum ~ '(coalesce(singletons, 0))' -%}
  {%- set firsts = [] -%}
  {%- for column, type in dbt_analyze._storage_columns('partition_states')[6:] -%}
    {%- do firsts.append(agg.first ~ '(' ~ column ~ ') as first_' ~ column) -%}
  {%- endfor -%}
  {%- set kll = 'quantile_sketch' if single else 'kll_merge_agg_double(quantile_sketch) filter (where ' ~ merge ~ ')' -%}
  {#- The sketch counts NULL as an item; a column without top values has no sketch to combine. -#}
  {%- set top_groups = dbt_analyze._top_k_groups(plan) -%}
  {%- set combined = [] -%}
  {%- for group in top_groups -%}
    {%- do combined.append(dbt_analyze._combined_top_state_sql(data_types, group.tracked,
                                                                merge ~ ') and (' ~ group.where if top_groups | length > 1 else merge)) -%}
  {%- endfor -%}
  {%- set top_state = 'top_values_sketch' if single
                      else 'if(count(top_values_sketch) > 0, ' ~ dbt_analyze._by_top_k_group_sql(top_groups, combined) ~ ', null)' -%}
  {#- A partitioned table's merged state, which its table rows carry: each field as if the table
      were one partition (M2 pooled about the table's mean), so that a run that adds partitions
      merges it with theirs alone (_stored_to_merge). No time: it is no partition's state. The
      fields these groups hold already are read from their columns (_merged_state_columns). -#}
  {%- set merged_state = {} -%}
  {%- if plan.table.partition_columns -%}
    {%- set held = dbt_analyze._merged_state_columns(with_sketch_statistics) -%}
    {%- set fields = {'files_modified_at': 'max(files_modified_at)', 'len_max': 'max(len_max)',
                      'value_m2': 'sum(value_m2) + ' ~ between_partitions, 'ndv_sketch': ndv_union,
                      'sketches': 'min(sketches)' if with_sketch_statistics else "'basic'",
                      'quantile_sketch': 'null', 'top_values_sketch': 'null',
                      'singletons': 'null', 'sample_rows': 'null', 'collected_at': 'null'} -%}
    {%- for column, type in dbt_analyze._storage_columns('partition_states')[6:] if column not in held -%}
      {%- do merged_state.update({column: fields.get(column, 'sum(' ~ column ~ ')')}) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set sql -%}
  select {{ spec_sql }} as partition_spec, column_name, data_type, {{ is_table }} as is_table,
         {{ '1' if single else 'sum(represents)' }} as partitions_analyzed,
         {{ agg.sum }}(row_count) as row_count, {{ agg.sum }}(size_bytes) as size_bytes, {{ agg.sum }}(file_count) as file_count,
         {{ agg.max }}(collected_at) as state_collected_at,
         coalesce({{ agg.bool_or }}(sample_rows is not null), false) as sampled,
         {{ "if(column_name = '', map(partition_spec, run_id), null)" if single
            else "map_from_entries(flatten(collect_list(runs) filter (where column_name = '')))" }} as partition_runs,
         {{ firsts | join(', ') }},
         {{ agg.sum }}(row_count) - {{ values }} as null_count,
         {#- Sampled states: Haas and Stokes' Duj1, D = n d / (n - f1 + f1 n / N), from the sample's
             non-null rows n, its distinct values d (HLL) and singletons f1, and the rows N it stands for. -#}
         case when {{ 'ndv_sketch is null' if single else 'count(ndv_sketch) = 0' }} then null
              when {{ agg.max }}(sample_rows) is null then least({{ ndv }}, {{ values }})
              else cast(round(least(greatest(
                {{ sample_values }} * {{ ndv }}
                / nullif({{ sample_values }} - {{ singletons }} + {{ singletons }} * {{ sample_values }} / nullif({{ values }}, 0), 0),
                {{ ndv }}), {{ values }})) as bigint) end as distinct_count,
         {#- One state's extremes are this run's own text of them: nothing to compare. -#}
         {{ 'min_value' if single else dbt_analyze._typed_extreme_sql(agg.min, 'min_value', data_types) }} as min_value,
         {{ 'max_value' if single else dbt_analyze._typed_extreme_sql(agg.max, 'max_value', data_types) }} as max_value,
         coalesce({{ agg.sum }}(len_sum) / nullif({{ values }}, 0), {{ default_size }}) as avg_len,
         coalesce({{ agg.max }}(len_max), {{ default_size }}) as max_len,
         {{ agg.sum }}(true_count) as true_count_merged, {{ agg.sum }}(false_count) as false_count_merged,
         {{ agg.sum }}(value_sum) / nullif({{ values }}, 0) as mean,
         {#- greatest() skips NULLs: keep NULL for columns without values. -#}
         if({{ agg.sum }}(value_m2) is null, null,
            sqrt(greatest({{ agg.sum }}(value_m2)
                          {%- if not single %} + if({{ is_table }} = 1, {{ between_partitions }}, 0){% endif %}, 0)
                 / nullif({{ values }} - 1, 0))) as stddev
         {%- if with_sketch_statistics %},
         {{ kll }} as kll,
         {{ values }} as n, least({{ ndv }}, {{ values }}) as ndv,
         {{ top_state }} as top_state
         {%- endif %}
         {%- for field, expression in merged_state.items() %},
         {{ expression }} as merged_{{ field }}
         {%- endfor %}
         {%- if single %},
         {#- this_run's columns (_run_numbers_sql), which a single state's own listing row holds. -#}
         1 as partition_count, size_bytes as listed_size_bytes, file_count as listed_file_count, collected_at as now
         {%- endif %}
  from {{ 'states' if single else 'prepared' }}
  {%- if not single %}
  group by {{ group_by }}
  {%- endif %}
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- How many values a state's sample stands for: its values, scaled to the partition's rows. -#}
{% macro _sample_values_sql() %}
  {{ return('if(sample_rows is null, value_count, value_count * sample_rows / nullif(row_count, 0))') }}
{% endmacro %}

{#- The fields of the merged state that the merged groups hold already, and their columns there
    (_merged_rows_sql writes the others as merged_<field>). -#}
{% macro _merged_state_columns(with_sketch_statistics) %}
  {%- set columns = {'row_count': 'row_count', 'size_bytes': 'size_bytes', 'file_count': 'file_count',
                     'min_value': 'min_value', 'max_value': 'max_value',
                     'true_count': 'true_count_merged', 'false_count': 'false_count_merged'} -%}
  {%- if with_sketch_statistics -%}
    {%- do columns.update({'quantile_sketch': 'kll', 'top_values_sketch': 'top_state'}) -%}
  {%- endif -%}
  {{ return(columns) }}
{% endmacro %}

{#- The rows to write, from the merged groups (in statistics_history's columns): a table row ('')
    also when there is no state at all (an empty or never scanned table), from this_run alone; a
    table's column row only when every partition has a state of it. -#}
{% macro _statistics_rows_sql(plan, run_id, with_sketch_statistics, merged_rows) %}
  {%- set partitioned = plan.table.partition_columns | length > 0 -%}
  {%- set run = dbt_analyze._quote_literal(run_id) -%}
  {%- set carries_state = 'm.is_table = 0' if partitioned else 'true' -%}
  {%- set column_row = "coalesce(m.column_name, '') <> ''" -%}
  {%- set table_row = "coalesce(m.column_name, '') = '' and coalesce(m.is_table, 1) = 1" -%}
  {%- set values = {
        'run_id': run, 'table_schema': dbt_analyze._quote_literal(plan.table.schema),
        'table_name': dbt_analyze._quote_literal(plan.table.identifier),
        'partition_spec': "coalesce(m.partition_spec, '')", 'column_name': "coalesce(m.column_name, '')",
        'data_type': 'm.data_type',
        'row_count': "case when " ~ column_row
            ~ " then null when coalesce(m.is_table, 1) = 1 then if(coalesce(m.partitions_analyzed, 0) = m.partition_count, coalesce(m.row_count, 0), null) else m.row_count end",
        'size_bytes': "case when " ~ column_row ~ " then null when " ~ table_row
            ~ " then m.listed_size_bytes else m.size_bytes end",
        'file_count': "case when " ~ column_row ~ " then null when " ~ table_row
            ~ " then m.listed_file_count else m.file_count end",
        'partition_count': 'if(' ~ table_row ~ ', m.partition_count, null)' if partitioned else 'cast(null as bigint)',
        'partitions_analyzed': 'coalesce(m.partitions_analyzed, 0)',
        'sampled': 'coalesce(m.sampled, false)',
        'collected_at': 'if(coalesce(m.is_table, 1) = 1, m.now, m.state_collected_at)',
        'partition_runs': ('if(' ~ table_row ~ ', coalesce(m.partition_runs, map()), null)') if partitioned
            else ('if(' ~ table_row ~ ", map('', " ~ run ~ '), null)'),
        'true_count': 'm.true_count_merged', 'false_count': 'm.false_count_merged',
      } -%}
  {%- set types = [] -%}
  {%- for column in plan.table.data_columns -%}
    {%- do types.extend([dbt_analyze._quote_literal(column.name), dbt_analyze._quote_literal(column.data_type)]) -%}
  {%- endfor -%}
  {%- do values.update({'column_types': 'if(' ~ table_row ~ ', map(' ~ types | join(', ') ~ '), null)'}) -%}
  {%- for column in ['null_count', 'distinct_count', 'min_value', 'max_value', 'avg_len', 'max_len', 'mean',
                     'stddev'] -%}
    {%- do values.update({column: 'm.' ~ column}) -%}
  {%- endfor -%}
  {%- set arrays = dbt_analyze._sketch_arrays_sql(plan, merged_rows) if with_sketch_statistics else none -%}
  {%- if arrays -%}
    {%- do values.update(arrays.columns) -%}
  {%- endif -%}
  {#- A partitioned table's rows carry its merged state where every partition has an unsampled one. -#}
  {%- set merged_ok = 'not coalesce(m.sampled, true) and m.partitions_analyzed = m.partition_count' -%}
  {%- set held = dbt_analyze._merged_state_columns(with_sketch_statistics) -%}
  {%- for column, type in dbt_analyze._storage_columns('partition_states')[6:] -%}
    {%- do values.update({'state_' ~ column: 'if(' ~ carries_state ~ ', m.first_' ~ column ~ ', '
                          ~ ('if(' ~ merged_ok ~ ', m.' ~ held.get(column, 'merged_' ~ column) ~ ', null)' if partitioned
                             else 'null') ~ ')'}) -%}
  {%- endfor -%}
  {%- set columns = [] -%}
  {%- for column, type in dbt_analyze._storage_columns('statistics_history') -%}
    {%- do columns.append('cast(' ~ values.get(column, 'null') ~ ' as ' ~ type ~ ') as ' ~ column) -%}
  {%- endfor -%}
  {%- set sql -%}
  select {{ columns | join(',
         ') }}
  from {{ arrays.relation if arrays else merged_rows }} m
  where (coalesce(m.is_table, 1) = 1 or m.partition_spec <> '')
    and (m.column_name is null or m.column_name = '' or m.is_table = 0 or m.partitions_analyzed = m.partition_count)
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- The merged rows' quantiles, histogram bins and top values as arrays: `relation`, the merged
    rows with what those are derived from, and `columns`, the SQL of each array over it. Histograms
    are equi-height bins, Spark CBO style: num_bins bins whose bounds are the KLL quantiles at
    i/num_bins, each holding rows/num_bins rows. A bin's distinct count is estimated without a scan
    from the column's NDV (HLL) and a 10x finer quantile grid. Other than integers and dates: the
    NDV shared out in proportion to the distinct grid points in the bin (exact while the column has
    fewer distinct values than the grid). Integers and dates: each bin has its distinct grid points;
    the NDV beyond them goes first to bins with 3x more rows than the W values of (lower, upper]
    (full: all W), then to the others in proportion to how many more values they would hold if
    their rows fell at random on their W values (W (1 - exp(-rows / W))): the sparse bins of a
    skewed column's tail get more than its dense ones. Capped by the bin's rows and W. Partition
    histograms are many rows: only when asked (dbt_analyze_partition_histograms).
    Two levels under the rows' SELECT, not one per step: Spark's analyzer resolves each nested
    SELECT in passes of its own over the whole plan, so a bin's steps (its grid points, W, excess)
    are one expression (grid points and W bound once by an inner transform), and the excess totals
    are bound inside the histogram's. -#}
{% macro _sketch_arrays_sql(plan, merged_rows) %}
  {%- set data_types = plan.table.data_columns | map(attribute='data_type') | list -%}
  {%- set num_bins = dbt_analyze._var('dbt_analyze_histogram_bins') | int -%}
  {%- set quantiles = dbt_analyze._var('dbt_analyze_quantiles') -%}
  {%- set top_k = dbt_analyze._var('dbt_analyze_top_k') | int -%}
  {%- set bin_ranks = [] -%}
  {%- for i in range(num_bins + 1) -%}{%- do bin_ranks.append(i / num_bins) -%}{%- endfor -%}
  {%- set fine_ranks = [] -%}
  {%- for i in range(10 * num_bins + 1) -%}{%- do fine_ranks.append(i / (10 * num_bins)) -%}{%- endfor -%}
  {%- set integral_like = [] -%}
  {%- for data_type in data_types | unique if dbt_analyze._type_category(data_type) in ('integral', 'date') -%}
    {%- do integral_like.append(dbt_analyze._quote_literal(data_type)) -%}
  {%- endfor -%}
  {%- set bin_rows = '(n / ' ~ num_bins ~ ')' -%}
  {#- A bin's W and its grid points (the grid's points 10*i .. 10*i+10 are the quantiles between its
      bounds), each taken once, and then the values beyond them that its rows would fill at random. -#}
  {%- set domain = ('if(data_type in (' ~ integral_like | join(', ')
                    ~ '), bounds[i + 1] - bounds[i] + if(i = 0, 1, 0), null)') if integral_like
                   else 'cast(null as double)' -%}
  {%- set grid_points = 'size(array_distinct(filter(slice(grid, 10 * i + 1, 11), x -> x > bounds[i] or i = 0)))' -%}
  {%- set excess = 'greatest(if(b.domain > 0, b.domain * (1 - exp(-' ~ bin_rows ~ ' / b.domain)), 0) - b.grid_points, 0)' -%}
  {#- A bin with 3x more rows than values is full (95% for random rows), and served first. -#}
  {%- set full = bin_rows ~ ' >= 3 * b.domain' -%}
  {%- set bins = 'if(bounds is null, null, transform(transform(sequence(0, ' ~ (num_bins - 1) ~ "), i -> named_struct('bin', i,"
                 ~ " 'grid_points', " ~ grid_points ~ ", 'domain', " ~ domain ~ ")), b -> named_struct('bin', b.bin,"
                 ~ " 'grid_points', b.grid_points, 'domain', b.domain, 'full_excess', if(" ~ full ~ ', ' ~ excess
                 ~ ", 0), 'open_excess', if(" ~ full ~ ', 0, ' ~ excess ~ '))))' -%}
  {%- set histograms_for = 'true' if dbt_analyze._var('dbt_analyze_partition_histograms') else 'is_table = 1' -%}
  {#- A sketch only where it has values (every reader refuses an empty one), and a table's only when
      every partition has a state of the column. -#}
  {%- set sketch = 'kll is not null and kll_sketch_get_n_double(kll) > 0 and (is_table = 0 or partitions_analyzed = partition_count)' -%}
  {#- Per group of columns by the items their sketches track: one item more than the list may keep,
      to see where the rule stops; a sketch reports at most the items it tracks, and of those only
      the ones it counts for sure. -#}
  {%- set top_groups = dbt_analyze._top_k_groups(plan) -%}
  {%- set tops = [] -%}
  {%- set most_commons = [] -%}
  {%- for group in top_groups -%}
    {%- set most_common = (dbt_analyze._var('dbt_analyze_most_common_values') or group.tracked) | int -%}
    {%- do most_commons.append(most_common | string) -%}
    {%- do tops.append(dbt_analyze._top_values_sql(data_types, 'top_state', [[top_k, most_common] | max + 1, group.tracked] | min)) -%}
  {%- endfor -%}
  {%- set top = 'if(top_state is null, null, ' ~ dbt_analyze._by_top_k_group_sql(top_groups, tops) ~ ')' -%}
  {%- set relation -%}
  (select *, size(array_distinct(grid)) as grid_distinct,
          {{ bins }} as bins,
          {{ dbt_analyze._by_top_k_group_sql(top_groups, most_commons) }} as most_common,
          {{ dbt_analyze._most_common_rule_sql('top_sorted') }} as rule_listed,
          {#- Each bound rendered once: it is one bin's upper bound and the next one's lower. -#}
          transform(bounds, x -> {{ dbt_analyze._render_by_type_sql('x', data_types) }}) as rendered_bounds
   from (
     select *,
            if({{ sketch }}, kll_sketch_get_quantile_double(kll, {{ dbt_analyze._ranks_sql(quantiles) }}), null) as q_values,
            if({{ sketch }} and {{ histograms_for }}, kll_sketch_get_quantile_double(kll, {{ dbt_analyze._ranks_sql(bin_ranks) }}), null) as bounds,
            if({{ sketch }} and {{ histograms_for }}, kll_sketch_get_quantile_double(kll, {{ dbt_analyze._ranks_sql(fine_ranks) }}), null) as grid,
            array_sort(filter({{ dbt_analyze._top_items_sql(data_types, top) }}, v -> v.item is not null),
                       (l, r) -> case when l.count > r.count then -1 when l.count < r.count then 1
                                      when l.item < r.item then -1 when l.item > r.item then 1 else 0 end) as top_sorted
     from {{ merged_rows }}
   ))
  {%- endset -%}
  {#- The NDV beyond the grid's distinct points. -#}
  {%- set beyond_grid = '(greatest(ndv - grid_distinct, 0))' -%}
  {%- set histogram -%}
  {#- The bins' excess totals, bound once for every bin: a one-element array's transform. -#}
  transform(array(aggregate(bins, named_struct('full', cast(0 as double), 'open', cast(0 as double)),
                            (total, b) -> named_struct('full', total.full + b.full_excess, 'open', total.open + b.open_excess))),
            excess_total -> transform(bins, b -> named_struct(
              'bin', b.bin,
              'lower_bound', rendered_bounds[b.bin],
              'upper_bound', rendered_bounds[b.bin + 1],
              'row_count', {{ bin_rows }},
              {#- Capped by the bin's rows and, for integers and dates, its W values. -#}
              'distinct_count', cast(greatest(1, least(
                if(b.domain is null, round(ndv * b.grid_points / grid_distinct),
                   b.grid_points + round(b.full_excess * least(1, {{ beyond_grid }} / nullif(excess_total.full, 0))
                                         + greatest({{ beyond_grid }} - excess_total.full, 0)
                                           * coalesce(b.open_excess / nullif(excess_total.open, 0), 0))),
                ceil({{ bin_rows }}), if(b.domain is null, 1e18, greatest(b.domain, 1)))) as bigint))))[0]
  {%- endset -%}
  {#- The most common values: the first top_k, and beyond them every value more common than the
      average of the values not listed before it (dbt_analyze._most_common_rule_sql). Truncated:
      the list stopped where the sketch stopped counting. The rule passed every value it reported
      (short of the cap, and of the column's values: the NDV is off by about 1%), and the last of
      them is within 1.5x of twice the sketch's error, below which it reports none: the values go
      on below it (a list of heavy values over rare ones ends far above it: BENCHMARKS.md). -#}
  {{ return({'relation': relation, 'columns': {
      'quantiles': 'if(q_values is null, null, transform(' ~ dbt_analyze._ranks_sql(quantiles)
                   ~ ", (q, i) -> named_struct('quantile', q, 'value', "
                   ~ dbt_analyze._render_by_type_sql('q_values[i]', data_types) ~ ')))',
      'histogram': histogram,
      'top_values': 'transform(slice(top_sorted, 1, greatest(' ~ top_k ~ ", least(most_common, rule_listed))),"
                    ~ " (v, i) -> named_struct('rank', i + 1, 'value', v.item, 'frequency', v.count))",
      'top_values_truncated': 'top_state is not null and size(top_sorted) > 0 and rule_listed = size(top_sorted)'
                              ~ ' and size(top_sorted) < least(most_common, 0.9 * coalesce(distinct_count, ndv))'
                              ~ ' and get(top_sorted, size(top_sorted) - 1).count <= 3 * '
                              ~ dbt_analyze._top_k_error_sql('top_state')}}) }}
{% endmacro %}

{#- How many of a column's top values (sorted, most common first) are most common values: the
    longest run from the first in which each value, seen more than once, is at least 1.25 times as
    common as the average of the values not listed before it (the column's non-null rows n and
    distinct count ndv, less the values before it). PostgreSQL's ANALYZE keeps a value on its list
    by the same comparison with the rest; a value beyond the run is left to the histogram's bins. -#}
{% macro _most_common_rule_sql(sorted) %}
  {#- One pass that carries the rows listed so far (a sum per value would be quadratic in the list,
      which reaches the items a sketch tracks). -#}
  {%- set passes = 'v.count > 1 and v.count >= 1.25 * (n - kept.listed_rows)'
                   ~ ' / greatest(coalesce(distinct_count, ndv) - kept.listed, 1)' -%}
  {{ return('aggregate(' ~ sorted ~ ", named_struct('listed', 0, 'listed_rows', cast(0 as bigint), 'stopped', false),"
            ~ ' (kept, v) -> if(kept.stopped or not (' ~ passes ~ "), named_struct('listed', kept.listed,"
            ~ " 'listed_rows', kept.listed_rows, 'stopped', true), named_struct('listed', kept.listed + 1,"
            ~ " 'listed_rows', kept.listed_rows + v.count, 'stopped', false))).listed") }}
{% endmacro %}

{#- A merged row's top value candidates: the merged top-k sketch's (top), and a boolean's own true
    and false counts, exact, also where older states of the column carry a sketch. -#}
{% macro _top_items_sql(data_types, top) %}
  {%- set booleans = [] -%}
  {%- for data_type in data_types | unique if dbt_analyze._type_category(data_type) == 'boolean' -%}
    {%- do booleans.append(dbt_analyze._quote_literal(data_type)) -%}
  {%- endfor -%}
  {%- if not booleans -%}{{ return(top) }}{%- endif -%}
  {{ return('if(data_type in (' ~ booleans | join(', ')
            ~ "), filter(array(named_struct('item', 'true', 'count', true_count_merged),"
            ~ " named_struct('item', 'false', 'count', false_count_merged)), v -> v.count > 0), " ~ top ~ ')') }}
{% endmacro %}

{#- This run's numbers as a one-row relation `this_run` (partition_count, listed_size_bytes,
    listed_file_count, now) for the merge's statements to join. Not literals: Spark writes a bigint
    or timestamp literal into the code it generates, so every run's new counts and time would
    compile the statements' classes anew (docs/ARCHITECTURE.md, "Compiled classes"); a VALUES row is data. -#}
{% macro _run_numbers_sql(plan) %}
  {{ return('(values (cast(' ~ plan.all_partitions | length ~ ' as bigint), cast('
            ~ plan.listing.values() | sum(attribute='size_bytes')
            ~ ' as bigint), cast(' ~ plan.listing.values() | sum(attribute='file_count')
            ~ ' as bigint), current_timestamp()))'
            ~ ' as this_run(partition_count, listed_size_bytes, listed_file_count, now)') }}
{% endmacro %}

{#- SQL of a string-rendered value of data_type merged with agg (min or max; '' for one state), typed per type. -#}
{% macro _typed_extreme_sql(agg, field, data_types) %}
  {%- set branches = [] -%}
  {%- for data_type in data_types | unique -%}
    {%- set category = dbt_analyze._type_category(data_type) -%}
    {%- if category == 'string' and not dbt_analyze._collation(data_type) -%}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then ' ~ agg ~ '(' ~ field ~ ')') -%}
    {%- elif category == 'timestamp' -%}
      {#- As an instant (the views render it in the reader's zone: _rendered_sql). -#}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then '
                             ~ dbt_analyze._timestamp_state_sql(agg ~ '(' ~ dbt_analyze._timestamp_from_state_sql(field)
                                                                ~ ')')) -%}
    {%- elif category in dbt_analyze._ordered_categories() -%}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then cast(' ~ agg ~ '(try_cast('
                             ~ field ~ ' as ' ~ data_type ~ ')) as string)') -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return('case data_type ' ~ branches | join(' ') ~ ' end' if branches else 'cast(null as string)') }}
{% endmacro %}

{% macro _default_size_sql(data_types) %}
  {%- set branches = [] -%}
  {%- for data_type in data_types | unique if dbt_analyze._default_size(data_type) -%}
    {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then '
                           ~ dbt_analyze._default_size(data_type)) -%}
  {%- endfor -%}
  {{ return('case data_type ' ~ branches | join(' ') ~ ' end' if branches else 'cast(null as bigint)') }}
{% endmacro %}

