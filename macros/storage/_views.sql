{#- The storage's views: the statistic kinds (every run's rows, and the current ones), the stored states, staleness and estimates. -#}

{#- Every view of the storage by name, with its query. -#}
{% macro _storage_views() %}
  {%- set table = dbt_analyze._storage_relation('statistics_history') -%}
  {%- set views = {'analyze_runs': dbt_analyze._analyze_runs_sql(),
                   'table_staleness': dbt_analyze._table_staleness_sql(),
                   'column_statistics_estimated': dbt_analyze._latest_estimates_sql(),
                   'partition_states': dbt_analyze._partition_states_sql()} -%}
  {%- for kind in dbt_analyze._statistics_kinds() -%}
    {%- do views.update({kind ~ '_history': dbt_analyze._statistics_view_sql(kind, 'select * from ' ~ table),
                         kind: dbt_analyze._statistics_view_sql(kind, dbt_analyze._current_rows_sql())}) -%}
  {%- endfor -%}
  {%- do views.update({'column_group_statistics_history': dbt_analyze._column_group_view_sql('select * from ' ~ table),
                       'column_group_statistics': dbt_analyze._column_group_view_sql(dbt_analyze._current_rows_sql())}) -%}
  {{ return(views) }}
{% endmacro %}

{#- The view of one kind over `source` (statistics_history, or its current rows: _current_rows_sql);
    `where`: other rows than the kind's own. -#}
{% macro _statistics_view_sql(kind, source, where=none) %}
  {%- set spec = dbt_analyze._statistics_kinds()[kind] -%}
  {%- set columns = [] -%}
  {%- for column, type in dbt_analyze._storage_columns(kind ~ '_history') -%}
    {%- do columns.append(spec.fields.get(column, 's.' ~ column) ~ ' as ' ~ column) -%}
  {%- endfor -%}
  {{ return('select ' ~ columns | join(', ') ~ ' from (' ~ source ~ ') s ' ~ spec.get('from', '') ~ ' where '
            ~ (where or spec.where)) }}
{% endmacro %}

{#- The rows of column groups (_column_groups.sql) over `source`: the group's columns as an array,
    the distinct combinations of their values, and the rows where one of them is null. -#}
{% macro _column_group_view_sql(source) %}
  {%- set fields = {'column_names': "from_json(s.column_name, 'array<string>')", 'state_run_id': 's.run_id'} -%}
  {%- set columns = [] -%}
  {%- for column, type in dbt_analyze._storage_columns('column_group_statistics_history') -%}
    {%- do columns.append(fields.get(column, 's.' ~ column) ~ ' as ' ~ column) -%}
  {%- endfor -%}
  {{ return('select ' ~ columns | join(', ') ~ ' from (' ~ source ~ ') s where s.data_type = '
            ~ dbt_analyze._quote_literal(dbt_analyze._column_group_type())) }}
{% endmacro %}

{#- A value of a row's column as text: a timestamp's is stored as its instant (microseconds since
    the epoch) and rendered here as UTC's clock time, by arithmetic on a timestamp_ntz: no session
    zone takes part (a view resolves in the zone of the session that created it), so rows taken
    under any zone read alike. Text of other types, and of rows stored rendered (storage version 5,
    set_statistics), as it is. -#}
{% macro _rendered_sql(value) %}
  {{ return("if(s.data_type in ('timestamp', 'timestamp_ltz'), coalesce("
            ~ dbt_analyze._utc_clock_sql('try_cast(' ~ value ~ ' as bigint)') ~ ', '
            ~ value ~ '), ' ~ value ~ ')') }}
{% endmacro %}

{#- Microseconds since the epoch as the text of UTC's clock time then (cast(x as string)'s format). -#}
{% macro _utc_clock_sql(micros) %}
  {{ return("cast(timestamp_ntz'1970-01-01 00:00:00' + make_dt_interval(0, 0, 0, cast(cast(" ~ micros
            ~ ' as decimal(18, 0)) / 1000000 as decimal(18, 6))) as string)') }}
{% endmacro %}

{#- Every stored state (the rows that carry one), in the columns of partition_states. -#}
{% macro _partition_states_sql(source=none) %}
  {%- set columns = [] -%}
  {%- for column, type in dbt_analyze._storage_columns('partition_states') -%}
    {%- do columns.append(column if column in ('run_id', 'table_schema', 'table_name', 'partition_spec', 'column_name',
                                               'data_type')
                          else 'state_' ~ column ~ ' as ' ~ column) -%}
  {%- endfor -%}
  {{ return('select ' ~ columns | join(', ') ~ ' from '
            ~ (source or dbt_analyze._storage_relation('statistics_history'))
            ~ ' where state_collected_at is not null') }}
{% endmacro %}

{#- The current rows of statistics_history: each table's rows ('') of its latest succeeded run,
    and the partition rows that run's partition_runs names (an unpartitioned table's own row);
    with runs_sql (a query of table_schema, table_name, run_id), of those runs instead; with
    table, of that table only (read from its bucket). -#}
{% macro _current_rows_sql(runs_sql=none, table=none) %}
  {%- set only = (' and ' ~ dbt_analyze._table_where_sql(table, 't.')) if table else '' -%}
  {%- set only_h = (' and ' ~ dbt_analyze._table_where_sql(table, 'h.')) if table else '' -%}
  {%- set runs_sql = runs_sql or dbt_analyze._latest_runs_sql() -%}
  {%- set table = dbt_analyze._storage_relation('statistics_history') -%}
  {%- set sql -%}
  select h.* from {{ table }} h
  join (
    select l.table_schema, l.table_name, '' as partition_spec, l.run_id,
           cast(null as map<string,string>) as column_types
    from ({{ runs_sql }}) l
    union all
    select t.table_schema, t.table_name, p.partition_spec, p.run_id, t.column_types
    from {{ table }} t left semi join ({{ runs_sql }}) l
      on t.run_id = l.run_id and t.table_schema = l.table_schema and t.table_name = l.table_name
    lateral view explode(t.partition_runs) p as partition_spec, run_id
    where t.partition_spec = '' and t.column_name = '' and p.partition_spec <> ''{{ only }}
  ) k on h.table_schema = k.table_schema and h.table_name = k.table_name and h.partition_spec = k.partition_spec and h.run_id = k.run_id
  where (k.column_types is null or h.column_name = '' or exists(map_entries(k.column_types), c -> c.key = h.column_name and c.value = h.data_type))
    {{- only_h }}
{%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- The latest estimate of every estimated model's columns. -#}
{% macro _latest_estimates_sql() %}
  select e.*
  from {{ dbt_analyze._storage_relation('column_statistics_estimated_history') }} e
  join (select table_schema, table_name, max_by(estimate_id, estimated_at) as estimate_id
        from {{ dbt_analyze._storage_relation('column_statistics_estimated_history') }} group by table_schema,
        table_name) latest
    on e.estimate_id = latest.estimate_id and e.table_schema = latest.table_schema and e.table_name = latest.table_name
{% endmacro %}

{#- The latest staleness check of every analyzed table: per table ('') and partition, when its
    statistics were collected and whether its data changed since (fresh | stale | new | dropped). -#}
{% macro _table_staleness_sql() %}
  select c.table_schema, c.table_name, c.partition_spec, c.status, c.collected_at, c.checked_at
  from {{ dbt_analyze._storage_relation('staleness_checks') }} c
  join (select table_schema, table_name, max_by(check_id, checked_at) as check_id
        from {{ dbt_analyze._storage_relation('staleness_checks') }} group by table_schema, table_name) latest
    on c.check_id = latest.check_id and c.table_schema = latest.table_schema and c.table_name = latest.table_name
{% endmacro %}
