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
  {%- set merged_view = dbt_analyze._merged_view_name(run_id) -%}
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
  {{ merged_rows }} as ({{ dbt_analyze._merged_rows_sql(plan, none, "''", '1', with_sketch_statistics,
                                                       dbt_analyze._written_identity_sql(plan, run_id)) }})
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
  {{ merged_rows }} as (select {{ dbt_analyze._written_identity_sql(plan, run_id) }}, d.*, m.*
                        from this_run d left join merged m on true)
  {%- endif %}
  {%- endset -%}
  {%- set rows_sql = dbt_analyze._statistics_rows_sql(plan, with_sketch_statistics, merged_rows) -%}
  {{ return({'sql': ctes ~ '\n' ~ rows_sql, 'merged_sql': ctes ~ '\nselect * from ' ~ merged_rows,
             'merged_view': merged_view, 'rows_sql': rows_sql, 'in_two': with_sketch_statistics}) }}
{% endmacro %}

{#- The temporary view of a run's merged rows, which its rows' half reads (and, with a suffix, a
    batch's held scans: _write_runs_together). -#}
{% macro _merged_view_name(run_id) %}
  {{ return('dbt_analyze_merged_' ~ modules.re.sub('[^0-9A-Za-z]', '_', run_id)) }}
{% endmacro %}

{#- What the merged rows carry of the run and its table (written_*), read by the rows' half as
    data: the rows of several tables' runs then derive their statistics in one statement
    (_write_runs_together). -#}
{% macro _written_identity_sql(plan, run_id) %}
  {%- set types = [] -%}
  {#- A partition's rows of the run's column groups are current too (_column_groups.sql). -#}
  {%- for column in plan.table.data_columns + plan.get('column_groups', []) -%}
    {%- do types.extend([dbt_analyze._quote_literal(column.name), dbt_analyze._quote_literal(column.data_type)]) -%}
  {%- endfor -%}
  {{ return(dbt_analyze._quote_literal(run_id) ~ ' as written_run_id, '
            ~ dbt_analyze._quote_literal(plan.table.schema) ~ ' as written_table_schema, '
            ~ dbt_analyze._quote_literal(plan.table.identifier) ~ ' as written_table_name, map('
            ~ types | join(', ') ~ ') as written_column_types') }}
{% endmacro %}

{#- A batch's merged rows from its runs' held partitions (_scan_sql's held_columns: each run's one
    partition with its written_* columns and its column states as one array), unpivoted and
    projected as the query that the rows' half reads: each run's rows as its own merged_sql gives
    them, with the unpivot and the projection planned once, not once per run (_write_runs_together). -#}
{% macro _merged_of_held_sql(plan, held, with_sketch_statistics) %}
  {%- set column_level = ['column_name', 'data_type'] + dbt_analyze._state_fields() | map('first') | list -%}
  {%- set columns = [] -%}
  {%- for name, type in dbt_analyze._storage_columns('partition_states') -%}
    {%- do columns.append(('s.' if name in column_level else 'h.') ~ name) -%}
  {%- endfor -%}
  {%- set written = 'written_run_id, written_table_schema, written_table_name, written_column_types' -%}
  {{ return('with states as (select ' ~ columns | join(', ') ~ ', ' ~ written ~ '\n  from ' ~ held
            ~ ' h lateral view inline(h.states) s)\n'
            ~ dbt_analyze._merged_rows_sql(plan, none, "''", '1', with_sketch_statistics, written)) }}
{% endmacro %}

{% macro _statistics_insert_sql(select) %}
  {{ return('insert into ' ~ dbt_analyze._storage_relation('statistics_history') ~ '\n' ~ select.sql) }}
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
