{#-
  The merge: table statistics are never scanned, they are derived from the current partition
  states. The current state of a partition and column is the newest one of a succeeded run (or of
  this run); only partitions that exist now and columns whose type is unchanged take part (with
  as_stored, every partition and column that has a state: planning compares them with today's).
  With run_ids (the runs whose states were current when the run planned), only their states and
  this run's are read: Parquet skips the files of every other run, so a merge reads no history.
  One statement writes the table's snapshot per kind: partition rows (each derived from its own
  state) and the table row ('' — the merge of all of them), through GROUPING SETS.
-#}
{% macro _current_states_sql(plan, run_id, with_sketches=false, as_stored=false, tables=none, run_ids=none) %}
  {%- set table = plan.table -%}
  {#- With as_stored, the states of more tables may be read at once (tables: their describes). -#}
  {%- set table_filters = [] -%}
  {%- set event_filters = [] -%}
  {%- for t in tables or [table] -%}
    {%- do table_filters.append('(' ~ dbt_analyze._table_where_sql(t, 's.') ~ ')') -%}
    {%- do event_filters.append('(' ~ dbt_analyze._table_where_sql(t, 'e.') ~ ')') -%}
  {%- endfor -%}
  {%- set column_filters = ["s.column_name = ''"] -%}
  {%- for column in plan.table.data_columns -%}
    {%- do column_filters.append('(s.column_name = ' ~ dbt_analyze._quote_literal(column.name)
                                 ~ ' and s.data_type = ' ~ dbt_analyze._quote_literal(column.data_type) ~ ')') -%}
  {%- endfor -%}
  {%- set partitions = [] -%}
  {%- for spec in plan.all_partitions -%}{%- do partitions.append(dbt_analyze._quote_literal(spec)) -%}{%- endfor -%}
  select * from (
    select s.*, row_number() over (partition by s.table_schema, s.table_name, s.partition_spec, s.column_name order by s.collected_at desc, s.run_id desc) as _rank
    from (
      select /*+ REPARTITION({{ dbt_analyze._states_spread(plan.all_partitions | length, plan.table.data_columns | length) }}, partition_spec, column_name) */
             s.run_id, s.table_schema, s.table_name, s.partition_spec, s.column_name, s.data_type, s.row_count, s.file_count, s.size_bytes,
             s.files_modified_at, s.sketches, s.sample_rows, s.collected_at
             {%- for field, type in dbt_analyze._state_fields() if with_sketches or type in ('bigint', 'double', 'string') %}, s.{{ field }}{% endfor %}
      from {{ dbt_analyze._storage_relation('partition_states') }} s
      where ({{ table_filters | join(' or ') }})
        {%- if run_ids is not none %}
        and s.run_id in ({% for id in ([run_id] + run_ids | list) | unique | sort %}{{ ', ' if not loop.first }}{{ dbt_analyze._quote_literal(id) }}{% endfor %})
        {%- else %}
        and (s.run_id = {{ dbt_analyze._quote_literal(run_id) }} or s.run_id in (
              select e.run_id from {{ dbt_analyze._storage_relation('analyze_run_events') }} e
              where e.event = 'succeeded' and ({{ event_filters | join(' or ') }})))
        {%- endif %}
        {%- if not as_stored %}
        and s.partition_spec in ({{ partitions | join(', ') if partitions else "null" }})
        and ({{ column_filters | join(' or ') }})
        {%- endif %}
    ) s
  ) where _rank = 1
{% endmacro %}

{#- How many Spark partitions the states of a merge are spread over (not spark.sql.shuffle.partitions,
    200 by default): the states are cached, and a cached plan runs without adaptive execution, so
    every merge statement would otherwise read 200 partitions of a few rows each. -#}
{% macro _states_spread(partition_count, column_count) %}
  {{ return([1, [64, ((partition_count + 1) * (column_count + 1) / 2000) | round(0, 'ceil') | int] | min] | max) }}
{% endmacro %}

{#- This run's numbers as a one-row relation `this_run` (partition_count, listed_size_bytes,
    listed_file_count, now) for the merge's statements to join. Not literals: Spark writes a bigint
    or timestamp literal into the code it generates, so every run's new counts and time would
    compile the statements' classes anew (7 to 15 a run, README: Performance); a VALUES row is data. -#}
{% macro _this_run_sql(plan) %}
  {{ return('(values (cast(' ~ plan.all_partitions | length ~ ' as bigint), cast(' ~ plan.listing.values() | sum(attribute='size_bytes')
            ~ ' as bigint), cast(' ~ plan.listing.values() | sum(attribute='file_count') ~ ' as bigint), current_timestamp()))'
            ~ ' as this_run(partition_count, listed_size_bytes, listed_file_count, now)') }}
{% endmacro %}

{#- SQL of a string-rendered value of data_type merged with agg (min or max), typed per type. -#}
{% macro _typed_extreme_sql(agg, field, data_types) %}
  {%- set branches = [] -%}
  {%- for data_type in data_types | unique -%}
    {%- set category = dbt_analyze._type_category(data_type) -%}
    {%- if category == 'string' and not dbt_analyze._collation(data_type) -%}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then ' ~ agg ~ '(' ~ field ~ ')') -%}
    {%- elif category == 'timestamp' -%}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then cast(' ~ agg ~ '(' ~ dbt_analyze._timestamp_from_state_sql(field) ~ ') as string)') -%}
    {%- elif category in dbt_analyze._ordered_categories() -%}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then cast(' ~ agg ~ '(try_cast(' ~ field ~ ' as ' ~ data_type ~ ')) as string)') -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return('case data_type ' ~ branches | join(' ') ~ ' end' if branches else 'cast(null as string)') }}
{% endmacro %}

{% macro _default_size_sql(data_types) %}
  {%- set branches = [] -%}
  {%- for data_type in data_types | unique if dbt_analyze._default_size(data_type) -%}
    {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then ' ~ dbt_analyze._default_size(data_type)) -%}
  {%- endfor -%}
  {{ return('case data_type ' ~ branches | join(' ') ~ ' end' if branches else 'cast(null as bigint)') }}
{% endmacro %}

{% macro _merge_sql(plan, run_id, states) %}
  {%- set table = plan.table -%}
  {%- set data_types = plan.table.data_columns | map(attribute='data_type') | list -%}
  {%- set partitioned = plan.table.partition_columns | length > 0 -%}
  {%- set grouping = 'grouping sets ((partition_spec, column_name, data_type), (column_name, data_type))' if partitioned
                     else 'column_name, data_type' -%}
  {%- set spec = "coalesce(partition_spec, '')" if partitioned else "''" -%}
  {%- set is_table = 'grouping(partition_spec) = 1' if partitioned else 'true' -%}
  {%- set run = dbt_analyze._quote_literal(run_id) ~ ' as run_id, ' ~ dbt_analyze._quote_literal(table.schema) ~ ' as table_schema, ' ~ dbt_analyze._quote_literal(table.identifier) ~ ' as table_name' -%}
  {%- set default_size = dbt_analyze._default_size_sql(data_types) -%}

  {#- Table rows: each partition's own state, and the table ('') as the sum of all of them. The
      table's size and file count come from today's listing; its row count only when every
      partition has a state. -#}
  {%- set table_sql -%}
  insert into {{ dbt_analyze._storage_relation('table_statistics_history') }}
  {%- if partitioned %}
  select {{ run }}, partition_spec, row_count, size_bytes, file_count, null, 1, sample_rows is not null, collected_at, run_id
  from {{ states }} where column_name = ''
  union all
  {%- endif %}
  select {{ run }}, '', if(a.partitions_analyzed = this_run.partition_count, a.row_count, null),
         this_run.listed_size_bytes, this_run.listed_file_count, {{ 'this_run.partition_count' if partitioned else 'null' }},
         a.partitions_analyzed, a.sampled, this_run.now, {{ dbt_analyze._quote_literal(run_id) }}
  from (select count(*) as partitions_analyzed, coalesce(sum(row_count), 0) as row_count,
               coalesce(bool_or(sample_rows is not null), false) as sampled
        from {{ states }} where column_name = '') a
  cross join {{ dbt_analyze._this_run_sql(plan) }}
  {%- endset -%}

  {#- Column rows. Exact statistics add up; NDV is the union of HLL sketches; min/max are compared
      as values of the column's type; the stddev is pooled from per-partition means and M2. -#}
  {%- set column_sql -%}
  insert into {{ dbt_analyze._storage_relation('column_statistics_history') }}
  select {{ dbt_analyze._storage_columns('column_statistics_history') | map('first') | join(', ') }}
  from (
    select {{ run }}, {{ spec }} as partition_spec, column_name, data_type,
           sum(row_count) - sum(value_count) as null_count,
           {#- Sampled states: Haas and Stokes' Duj1, D = n d / (n - f1 + f1 n / N), from the sample's
               non-null rows n, its distinct values d (HLL) and singletons f1, and the rows N it stands for. -#}
           case when count(ndv_sketch) = 0 then null
                when max(sample_rows) is null then least(hll_sketch_estimate(hll_union_agg(ndv_sketch, true)), sum(value_count))
                else cast(round(least(greatest(
                  sum(sample_values) * hll_sketch_estimate(hll_union_agg(ndv_sketch, true))
                  / nullif(sum(sample_values) - sum(coalesce(singletons, 0)) + sum(coalesce(singletons, 0)) * sum(sample_values) / nullif(sum(value_count), 0), 0),
                  hll_sketch_estimate(hll_union_agg(ndv_sketch, true))), sum(value_count))) as bigint) end as distinct_count,
           {{ dbt_analyze._typed_extreme_sql('min', 'min_value', data_types) }} as min_value,
           {{ dbt_analyze._typed_extreme_sql('max', 'max_value', data_types) }} as max_value,
           coalesce(sum(len_sum) / nullif(sum(value_count), 0), {{ default_size }}) as avg_len,
           coalesce(max(len_max), {{ default_size }}) as max_len,
           sum(true_count) as true_count, sum(false_count) as false_count,
           sum(value_sum) / nullif(sum(value_count), 0) as mean,
           {#- greatest() skips NULLs: keep NULL for columns without values. -#}
           if(sum(value_m2) is null, null,
              sqrt(greatest(sum(value_m2) + if({{ is_table }}, sum(value_count * pow(value_sum / nullif(value_count, 0) - table_mean, 2)), 0), 0)
                   / nullif(sum(value_count) - 1, 0))) as stddev,
           count(*) as partitions_analyzed,
           coalesce(bool_or(sample_rows is not null), false) as sampled,
           if({{ is_table }}, max(this_run.now), max(collected_at)) as collected_at,
           if({{ is_table }}, {{ dbt_analyze._quote_literal(run_id) }}, max(run_id)) as state_run_id,
           {{ is_table }} as _is_table, max(this_run.partition_count) as _partition_count
    from (
      select *, sum(value_sum) over (partition by column_name) / nullif(sum(value_count) over (partition by column_name), 0) as table_mean,
             if(sample_rows is null, value_count, value_count * sample_rows / nullif(row_count, 0)) as sample_values
      from {{ states }} where column_name <> ''
    ) cross join {{ dbt_analyze._this_run_sql(plan) }}
    group by {{ grouping }}
  )
  {#- A table row only when every partition has a state of the column. -#}
  where not _is_table or partitions_analyzed = _partition_count
  {%- endset -%}
  {{ return([table_sql, column_sql]) }}
{% endmacro %}
