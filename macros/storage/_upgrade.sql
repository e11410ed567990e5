{#- Upgrades of storage written by older versions, in order (_create_missing_storage runs them). -#}

{#- The tables that stay tables across versions gain the columns added since (older rows read NULL
    there): appended, or by a rebuild when they belong in between or the table is not bucketed as
    now (storage of version 3 and older is not bucketed, version 4 has 64 buckets); and the
    committer options (version 2 and older wrote with SET around each write). -#}
{% macro _upgrade_plain_tables(existing) %}
  {%- for name in dbt_analyze._storage_tables() if name in existing -%}
    {%- set described = run_query('describe table extended ' ~ dbt_analyze._storage_relation(name)) -%}
    {%- set st = namespace(columns=true, present=[], bucketed=false, buckets=none) -%}
    {%- for row in described -%}
      {%- if not row[0] or row[0].startswith('#') -%}{%- set st.columns = false -%}
      {%- elif st.columns -%}{%- do st.present.append(row[0]) -%}
      {%- elif row[0] == 'Bucket Columns' and 'table_name' in row[1] -%}{%- set st.bucketed = true -%}
      {%- elif row[0] == 'Num Buckets' -%}{%- set st.buckets = row[1] | string | trim -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set expected = dbt_analyze._storage_columns(name) -%}
    {%- if not st.bucketed or st.buckets != dbt_analyze._table_bucket_count() | string
          or st.present != (expected | map('first') | list)[:st.present | length] -%}
      {%- set values = [] -%}
      {%- for column, type in expected -%}
        {%- do values.append(dbt_analyze._quote_identifier(column) if column in st.present
                             else 'cast(null as ' ~ type ~ ')') -%}
      {%- endfor -%}
      {%- do dbt_analyze._rebuild_storage_table(name, values) -%}
    {%- elif st.present | length < expected | length -%}
      {%- set missing = [] -%}
      {%- for column, type in expected[st.present | length:] -%}
        {%- do missing.append(dbt_analyze._quote_identifier(column) ~ ' ' ~ type) -%}
      {%- endfor -%}
      {%- do run_query('alter table ' ~ dbt_analyze._storage_relation(name) ~ ' add columns (' ~ missing | join(', ')
                       ~ ')') -%}
    {%- endif -%}
    {%- do run_query('alter table ' ~ dbt_analyze._storage_relation(name) ~ ' set serdeproperties '
                     ~ dbt_analyze._storage_options()) -%}
  {%- endfor -%}
{% endmacro %}

{#- Storage of version 5 and older kept partition_states and one table per statistic kind: their
    rows move into statistics_history, every row kept. The old tables are first renamed <name>__v5
    (their names become views); the rows are copied into statistics_history__rebuilt, counted, and
    that takes its place; then the old tables go. Cut off halfway, the next run starts the copy again
    from the renamed tables. -#}
{% macro _merge_statistics_tables(existing) %}
  {%- set old = ['partition_states'] -%}
  {%- for kind in dbt_analyze._statistics_kinds() -%}{%- do old.append(kind ~ '_history') -%}{%- endfor -%}
  {%- if 'statistics_history' in existing -%}
    {%- for name in old if name ~ '__v5' in existing -%}
      {%- do run_query('drop table ' ~ dbt_analyze._storage_relation(name ~ '__v5')) -%}
    {%- endfor -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set kinds = {} -%}
  {%- for name in old -%}
    {%- set relation = dbt_analyze._storage_relation(name) -%}
    {%- if name in existing and name ~ '__v5' not in existing and dbt_analyze._is_table(relation) -%}
      {%- do run_query('alter table ' ~ relation ~ ' rename to ' ~ dbt_analyze._storage_relation(name ~ '__v5')) -%}
      {%- do kinds.update({name: true}) -%}
    {%- elif name ~ '__v5' in existing -%}
      {%- do kinds.update({name: true}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not kinds -%}{{ return(none) }}{%- endif -%}
  {%- set copy = dbt_analyze._storage_relation('statistics_history__rebuilt') -%}
  {%- do run_query('drop table if exists ' ~ copy) -%}
  {%- do dbt_analyze._create_storage_table('statistics_history', copy) -%}
  {%- set v5 = {} -%}
  {%- for name in old -%}
    {%- do v5.update({name: dbt_analyze._storage_relation(name ~ '__v5') if name in kinds
                      else '(' ~ dbt_analyze._null_row_sql(name) ~ ' where false)'}) -%}
  {%- endfor -%}
  {%- do run_query(dbt_analyze._merged_v5_rows_sql(copy, v5, added_in_8=false)) -%}
  {%- set counts = run_query("select (select count(*) from " ~ v5.table_statistics_history ~ "), (select count(*) from "
                             ~ v5.column_statistics_history
                             ~ "), (select count_if(column_name = '') from " ~ copy
                             ~ "), (select count_if(column_name <> '') from " ~ copy ~ ")")[0] -%}
  {%- if counts[0] != counts[2] or counts[1] != counts[3] -%}
    {%- do run_query('drop table ' ~ copy) -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: the upgrade of the statistics tables copied ' ~ counts[2] ~ ' of '
                                       ~ counts[0] ~ ' table rows and '
                                       ~ counts[3] ~ ' of ' ~ counts[1]
                                       ~ ' column rows: left as it was, nothing lost; run again when no run is writing') }}
  {%- endif -%}
  {%- do run_query('alter table ' ~ copy ~ ' rename to ' ~ dbt_analyze._storage_relation('statistics_history')) -%}
  {%- for name in kinds -%}
    {%- do run_query('drop table ' ~ dbt_analyze._storage_relation(name ~ '__v5')) -%}
  {%- endfor -%}
{% endmacro %}

{% macro _is_table(relation) %}
  {%- set st = namespace(table=true) -%}
  {%- for row in run_query('describe table extended ' ~ relation)
      if row[0] == 'Type' and (row[1] or '') | trim | upper == 'VIEW' -%}
    {%- set st.table = false -%}
  {%- endfor -%}
  {{ return(st.table) }}
{% endmacro %}

{% macro _null_row_sql(name) %}
  {%- set columns = [] -%}
  {%- for column, type in dbt_analyze._storage_columns(name) -%}
    {%- do columns.append('cast(null as ' ~ type ~ ') as ' ~ column) -%}
  {%- endfor -%}
  {{ return('select ' ~ columns | join(', ')) }}
{% endmacro %}

{#- The rows of version 5's tables (or of a statistics document: v5, a relation per table name) as
    statistics_history rows: each snapshot row with its statistic kinds' arrays; the rows of each
    table's latest run (a relation of run_id, table_schema, table_name) with the states they were
    derived from (older snapshots are history: no merge reads them again). Version 5's own tables
    have none of the columns added in version 8 (added_in_8=false); a document's rows may. -#}
{% macro _merged_v5_rows_sql(target, v5, latest=none, added_in_8=true) %}
  {%- set state = dbt_analyze._storage_columns('partition_states')[6:] -%}
  {%- set keys = 'run_id, table_schema, table_name, partition_spec, column_name' -%}
  {%- set st = namespace(table_columns=[], column_columns=[]) -%}
  {%- for column, type in dbt_analyze._storage_columns('statistics_history') -%}
    {%- set table_value = 'null' -%}
    {%- set column_value = 'null' -%}
    {%- if not added_in_8 and column in dbt_analyze._columns_added_in_8() -%}
    {%- elif column.startswith('state_') -%}
      {%- set table_value = 's.' ~ column[6:] -%}
      {%- set column_value = table_value -%}
    {%- elif column in ('run_id', 'table_schema', 'table_name', 'partition_spec') -%}
      {%- set table_value = 't.' ~ column -%}{%- set column_value = 'c.' ~ column -%}
    {%- elif column == 'column_name' -%}{%- set table_value = "''" -%}{%- set column_value = 'c.column_name' -%}
    {%- elif column == 'partition_runs' -%}
      {%- set table_value = "case when t.partition_spec <> '' then null when t.partition_count is null then map('', t.run_id) else coalesce(p.partition_runs, map()) end" -%}
    {%- elif column in ('quantiles', 'histogram', 'top_values') -%}
      {%- set column_value = 'a.' ~ column -%}
    {%- elif column in dbt_analyze._storage_columns('table_statistics_history') | map('first') | list -%}
      {%- set table_value = 't.' ~ column -%}
      {%- set column_value = 'c.' ~ column if column in dbt_analyze._storage_columns('column_statistics_history')
                             | map('first') | list else 'null' -%}
    {%- elif column in dbt_analyze._storage_columns('column_statistics_history') | map('first') | list -%}
      {%- set column_value = 'c.' ~ column -%}
    {%- endif -%}
    {%- do st.table_columns.append(table_value ~ ' as ' ~ column) -%}
    {%- do st.column_columns.append(column_value ~ ' as ' ~ column) -%}
  {%- endfor -%}
  {%- if latest is none -%}
    {%- set latest -%}
      (select table_schema, table_name, max_by(run_id, event_at) as run_id from {{ dbt_analyze._storage_relation('analyze_run_events') }}
       where event = 'succeeded' group by 1, 2)
    {%- endset -%}
  {%- endif -%}
  {#- A row carries its state when it is of the latest run and a partition's (an unpartitioned table's own row included). -#}
  {%- set state_join -%}
    left join {{ latest }} latest on latest.run_id = {{ '{x}' }}.run_id and latest.table_schema = {{ '{x}' }}.table_schema and latest.table_name = {{ '{x}' }}.table_name
    left join {{ v5.partition_states }} s on s.run_id = {{ '{x}' }}.state_run_id and s.table_schema = {{ '{x}' }}.table_schema
      and s.table_name = {{ '{x}' }}.table_name and s.partition_spec = {{ '{x}' }}.partition_spec and s.column_name = {{ '{column}' }}
      and latest.run_id is not null and ({{ '{x}' }}.partition_spec <> '' or not coalesce(exists_partitions.partitioned, false))
  {%- endset -%}
  {%- set sql -%}
  insert into {{ target }}
  with partitioned as (
    {#- The runs of partitioned tables: their partitions' rows, or a table row with a partition count. -#}
    select run_id, table_schema, table_name,
           map_from_entries(collect_list(struct(partition_spec, run_id)) filter (where partition_spec <> '')) as partition_runs
    from {{ v5.table_statistics_history }} where partition_spec <> '' or partition_count is not null group by 1, 2, 3
  ),
  arrays as (
    select {{ keys }}, max(quantiles) as quantiles, max(histogram) as histogram, max(top_values) as top_values from (
      select {{ keys }}, array_sort(collect_list(struct(quantile, value))) as quantiles, null as histogram,
             null as top_values
      from {{ v5.column_quantiles_history }} group by {{ keys }}
      union all
      select {{ keys }}, null,
             array_sort(collect_list(struct(bin, lower_bound, upper_bound, row_count, distinct_count))), null
      from {{ v5.column_histograms_history }} group by {{ keys }}
      union all
      select {{ keys }}, null, null, array_sort(collect_list(struct(rank, value, frequency)))
      from {{ v5.column_top_values_history }} group by {{ keys }}
    ) group by {{ keys }}
  )
  select {{ st.table_columns | join(', ') }}
  from {{ v5.table_statistics_history }} t
  left join partitioned p
    on p.run_id = t.run_id and p.table_schema = t.table_schema and p.table_name = t.table_name
  left join (select distinct table_schema, table_name, true as partitioned from partitioned) exists_partitions
    on exists_partitions.table_schema = t.table_schema and exists_partitions.table_name = t.table_name
  {{ state_join | replace('{x}', 't') | replace('{column}', "''") }}
  union all
  select {{ st.column_columns | join(', ') }}
  from {{ v5.column_statistics_history }} c
  left join arrays a on a.run_id = c.run_id and a.table_schema = c.table_schema and a.table_name = c.table_name
    and a.partition_spec = c.partition_spec and a.column_name = c.column_name
  left join (select distinct table_schema, table_name, true as partitioned from partitioned) exists_partitions
    on exists_partitions.table_schema = c.table_schema and exists_partitions.table_name = c.table_name
  {{ state_join | replace('{x}', 'c') | replace('{column}', 'c.column_name') }}
  {%- endset -%}
  {{ return(sql) }}
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
  {%- do run_query('insert into ' ~ rebuilt ~ ' select ' ~ values | join(', ') ~ ' from ' ~ table ~ ' distribute by '
                   ~ dbt_analyze._table_bucket_sql('table_name')) -%}
  {%- set counts = run_query('select (select count(*) from ' ~ table ~ '), (select count(*) from ' ~ rebuilt
                             ~ ')')[0] -%}
  {%- if counts[0] != counts[1] -%}
    {%- do run_query('drop table ' ~ rebuilt) -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: rows were written to ' ~ name ~ ' while it was rebuilt ('
                                       ~ counts[0] ~ ' rows, '
                                       ~ counts[1]
                                       ~ ' copied): left as it was, nothing lost; run again when no run is writing') }}
  {%- endif -%}
  {#- What the tables' runs learned (_top_k_hints) goes with the rows. -#}
  {%- set hints = [] -%}
  {%- for row in run_query('show tblproperties ' ~ table) if row[0].startswith('dbt_analyze.top_k_tracked.') -%}
    {%- do hints.append(dbt_analyze._quote_literal(row[0]) ~ ' = ' ~ dbt_analyze._quote_literal(row[1])) -%}
  {%- endfor -%}
  {%- if hints -%}
    {%- do run_query('alter table ' ~ rebuilt ~ ' set tblproperties (' ~ hints | join(', ') ~ ')') -%}
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
      {%- do run_query('alter table ' ~ dbt_analyze._storage_relation(name ~ '__rebuilt') ~ ' rename to '
                       ~ dbt_analyze._storage_relation(name)) -%}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}
