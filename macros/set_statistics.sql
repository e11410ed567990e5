{#-
  dbt run-operation set_statistics --args '{relation: analytics.orders, row_count: 1000000}'
  dbt run-operation set_statistics --args '{relation: analytics.orders, column: customer_id, distinct_count: 50000}'

  Pins table statistics by hand: the row count, and a column's distinct count, null count, min or
  max (a value of the column's type, kept as the type renders it). Recorded as a run of its own
  (notes 'manual: ...') that copies the current statistics with the pinned values, so they are
  current until the next collection that scans (a run that finds nothing changed keeps them).
  Published to Spark's catalog with publish: true.
-#}
{% macro set_statistics(relation, row_count=none, column=none, distinct_count=none, null_count=none, min_value=none,
                        max_value=none, publish=false) %}
  {{ return(adapter.dispatch('set_statistics', 'dbt_analyze')(relation, row_count, column, distinct_count, null_count,
                                                              min_value, max_value, publish)) }}
{% endmacro %}

{% macro default__set_statistics(relation, row_count, column, distinct_count, null_count, min_value, max_value,
                                 publish) %}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- set counts = {'distinct_count': distinct_count, 'null_count': null_count} -%}
  {%- set extremes = {'min_value': min_value, 'max_value': max_value} -%}
  {%- set pinned = [] -%}
  {%- if row_count is not none -%}
    {%- if row_count is not number
        or row_count < 0 -%}{{ exceptions.raise_compiler_error('dbt_analyze: row_count must be a count, got '
                                                               ~ row_count) }}{%- endif -%}
    {%- do pinned.append('row_count=' ~ row_count) -%}
  {%- endif -%}
  {%- for name, value in counts.items() if value is not none -%}
    {%- if value is not number or value < 0 -%}{{ exceptions.raise_compiler_error('dbt_analyze: ' ~ name
        ~ ' must be a count, got ' ~ value) }}{%- endif -%}
  {%- endfor -%}
  {%- set column_values = {} -%}
  {%- for name, value in (counts.items() | list) + (extremes.items() | list) if value is not none -%}
    {%- do column_values.update({name: value}) -%}
    {%- do pinned.append(column ~ '.' ~ name ~ '=' ~ value) -%}
  {%- endfor -%}
  {%- if column_values and not column -%}
    {{ exceptions.raise_compiler_error("dbt_analyze: say which column: 'column: <name>' with "
                                       ~ column_values.keys() | join(', ')) }}
  {%- endif -%}
  {%- if not pinned -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: nothing to set (row_count, or column with distinct_count, null_count, min_value, max_value)') }}
  {%- endif -%}

  {%- set run = dbt_analyze._new_run({'relation': relation, 'set': pinned}) -%}
  {%- set plan = dbt_analyze._plan_target(dbt_analyze._build_request({'relation': relation, 'dry_run': true})) -%}
  {%- set table = plan.table -%}
  {%- set latest = dbt_analyze._latest_run_id(table) -%}
  {%- if latest is none -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: ' ~ table.schema ~ '.' ~ table.identifier
                                       ~ ' has no statistics yet: analyze it first') }}
  {%- endif -%}
  {%- set where = ' where run_id = ' ~ dbt_analyze._quote_literal(latest) ~ ' and '
                  ~ dbt_analyze._table_where_sql(table) -%}
  {#- The column as the catalog spells it (Spark's names are case-insensitive). -#}
  {%- set spelled = namespace(name=column) -%}
  {%- for known in table.data_columns if column and known.name | lower == column | lower -%}
    {%- set spelled.name = known.name -%}
  {%- endfor -%}
  {%- set column = spelled.name -%}
  {%- set current = run_query('select min_value, max_value from '
                              ~ dbt_analyze._storage_relation('column_statistics_history') ~ where
                               ~ " and partition_spec = '' and column_name = "
                               ~ dbt_analyze._quote_literal(column)).rows if column else [] -%}
  {%- if column and not current -%}
    {{ exceptions.raise_compiler_error("dbt_analyze: unknown column '" ~ column ~ "': " ~ table.schema ~ '.'
                                       ~ table.identifier ~ ' has no table statistics of it') }}
  {%- endif -%}

  {%- set pinned_extremes = {} -%}
  {%- for name, value in extremes.items() if value is not none -%}
    {%- do pinned_extremes.update({name: value}) -%}
  {%- endfor -%}
  {%- if pinned_extremes -%}
    {%- do column_values.update(dbt_analyze._typed_extremes(table, column, pinned_extremes,
                                                            {'min_value': current[0][0],
                                                             'max_value': current[0][1]})) -%}
  {%- endif -%}

  {%- do dbt_analyze._write_event(run, 'started', table) -%}
  {#- The latest run's table rows, copied (the partition rows they map stay current); an
      unpartitioned table's own row maps itself. -#}
  {%- set select = [] -%}
  {%- for name, type in dbt_analyze._storage_columns('statistics_history') -%}
    {%- set quoted = dbt_analyze._quote_identifier(name) -%}
    {%- if name == 'run_id' -%}
      {%- do select.append(dbt_analyze._quote_literal(run.run_id)) -%}
    {%- elif name == 'partition_runs' -%}
      {%- do select.append("if(map_contains_key(partition_runs, ''), map('', " ~ dbt_analyze._quote_literal(run.run_id)
                           ~ '), partition_runs)') -%}
    {%- elif name == 'row_count' and row_count is not none -%}
      {%- do select.append("if(column_name = '', cast(" ~ row_count | int ~ " as bigint), row_count)") -%}
    {%- elif name in column_values -%}
      {%- set value = 'cast(' ~ column_values[name] | int ~ ' as bigint)' if name in counts
                      else dbt_analyze._quote_literal(column_values[name]) -%}
      {%- do select.append('if(column_name = ' ~ dbt_analyze._quote_literal(column) ~ ', ' ~ value ~ ', ' ~ quoted
                           ~ ')') -%}
    {%- else -%}
      {%- do select.append(quoted) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do run_query('insert into ' ~ dbt_analyze._storage_relation('statistics_history') ~ ' select '
                   ~ select | join(', ')
                   ~ ' from ' ~ dbt_analyze._storage_relation('statistics_history') ~ where
                   ~ " and partition_spec = ''") -%}
  {%- set publish_ms = dbt_analyze._publish_to_catalog(table, run.run_id) if dbt_analyze._as_bool(publish) else none -%}
  {%- do dbt_analyze._write_event(run, 'succeeded', table,
                                  {'partitions_scanned': 0, 'publish_ms': publish_ms,
                                   'notes': 'manual: ' ~ pinned | join(', ')}) -%}
  {{ log('dbt_analyze: ' ~ table.schema ~ '.' ~ table.identifier ~ ': set ' ~ pinned | join(', ')
         ~ ' (until the next collection)', info=True) }}
{% endmacro %}

{#- Pinned min/max as the column's type renders them (cast(x as string), as a collection stores
    them), refused if they are not values of it or if min is above max: both pinned, or one pinned
    against the other's current value (a range the optimizer could not use). -#}
{% macro _typed_extremes(table, column, pinned, current) %}
  {%- set data_type = table.data_columns | selectattr('name', 'equalto', column) | map(attribute='data_type')
                      | first -%}
  {%- set category = dbt_analyze._type_category(data_type) -%}
  {%- if category not in dbt_analyze._ordered_categories() -%}
    {{ exceptions.raise_compiler_error("dbt_analyze: column '" ~ column ~ "' is " ~ data_type
                                       ~ ', which has no min or max') }}
  {%- endif -%}
  {%- set names = pinned.keys() | list -%}
  {%- set as_type = [] -%}
  {%- for name in names -%}{%- do as_type.append(dbt_analyze._as_type_sql(pinned[name], data_type)) -%}{%- endfor -%}
  {%- set bounds = dict(current, **pinned) -%}
  {%- set above = 'false' -%}
  {%- if bounds.min_value is not none and bounds.max_value is not none -%}
    {%- set above = dbt_analyze._as_type_sql(bounds.min_value, data_type, rendered=false) ~ ' > '
                    ~ dbt_analyze._as_type_sql(bounds.max_value, data_type, rendered=false) -%}
  {%- endif -%}
  {%- set rendered = run_query('select ' ~ as_type | join(', ') ~ ', ' ~ above).rows[0] -%}
  {%- set values = {} -%}
  {%- for name in names -%}
    {%- if rendered[loop.index0] is none -%}
      {{ exceptions.raise_compiler_error('dbt_analyze: ' ~ name ~ " '" ~ pinned[name] ~ "' is not a value of column '"
                                         ~ column ~ "' (" ~ data_type ~ ')') }}
    {%- endif -%}
    {%- do values.update({name: rendered[loop.index0]}) -%}
  {%- endfor -%}
  {%- if rendered[-1] -%}
    {%- set min_text = ('min_value ' ~ values.min_value) if 'min_value' in values
                       else ('the current min_value ' ~ bounds.min_value) -%}
    {%- set max_text = ('max_value ' ~ values.max_value) if 'max_value' in values
                       else ('the current max_value ' ~ bounds.max_value) -%}
    {%- set problem = min_text ~ ' is above ' ~ max_text if 'min_value' in values
                      else max_text ~ ' is below ' ~ min_text -%}
    {%- set hint = '' if names | length == 2 else ' (pin min_value and max_value together to move the range)' -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: ' ~ problem ~ " of column '" ~ column ~ "'" ~ hint) }}
  {%- endif -%}
  {{ return(values) }}
{% endmacro %}
